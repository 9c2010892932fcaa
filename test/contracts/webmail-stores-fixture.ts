import { openWebmailStores, type WebmailStores } from '../../src/webmail/webmail-stores.ts';
import type { LocationFixture, StoreLocation } from '../support/store-locations.ts';
import { contractSubject } from './contract-subject.ts';

export const IDLE_MS = 60_000;
/** The login rate limit's window in every contract: 3 failures (by default) within it lock an account. */
export const RATE_WINDOW_MS = 60_000;
const START = 1_000_000;

/** One test's webmail data: a fresh location, and every connection opened to it, all closed with it. */
interface WebmailPlace {
  readonly location: StoreLocation;
  open(rateLimit: number): Promise<WebmailStores>;
  close(): Promise<void>;
}

/**
 * A contract subject over the webmail's stores: a fresh location per test, `open()` connects to it
 * (again: a second connection is another process's view), every connection closed after the test.
 * The webmail's stores are opened per connection with their own rate limit, so the subject's store is
 * the test's place rather than one connection. `clock.now` is the time every connection reads;
 * `closeAll()` ends them within a test (a restart).
 */
export function webmailStoresSubject(fixture: () => LocationFixture | null) {
  const clock = { now: START };
  const place = (location: StoreLocation): WebmailPlace => {
    const opened: WebmailStores[] = [];
    return {
      location,
      async open(rateLimit) {
        const stores = await openWebmailStores({
          ...location,
          idleMillis: IDLE_MS,
          rateLimit: { limit: rateLimit, windowMillis: RATE_WINDOW_MS },
          now: () => clock.now,
        });
        opened.push(stores);
        return stores;
      },
      async close() {
        await Promise.all(opened.splice(0).map((stores) => stores.close()));
      },
    };
  };
  const given = contractSubject<WebmailPlace>(() => {
    const places = fixture();
    if (!places) return null;
    return {
      async open() {
        clock.now = START;
        return place(places.fresh());
      },
    };
  });
  return {
    clock,
    open: (rateLimit = 3): Promise<WebmailStores> => given.store.open(rateLimit),
    /** Where this test's stores are, to read what they wrote without the adapters. */
    location: (): StoreLocation => given.store.location,
    closeAll: (): Promise<void> => given.store.close(),
  };
}
