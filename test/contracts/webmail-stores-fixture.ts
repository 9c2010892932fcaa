import { openWebmailStores, type WebmailStores } from '../../src/webmail/webmail-stores.ts';
import type { LocationFixture, StoreLocation } from '../support/store-locations.ts';

export const IDLE_MS = 60_000;
/** The login rate limit's window in every contract: 3 failures (by default) within it lock an account. */
export const RATE_WINDOW_MS = 60_000;

/**
 * Hooks for a contract over one of the webmail's stores: a fresh location per test, `open()` connects
 * to it (again: a second connection is another process's view), every connection closed after the test.
 * `clock.now` is the time every connection reads; `closeAll()` ends them within a test (a restart).
 */
export function webmailStoresSubject(fixture: () => LocationFixture | null) {
  const clock = { now: 1_000_000 };
  let places: LocationFixture;
  let location: StoreLocation;
  const opened: WebmailStores[] = [];
  before(function () {
    const found = fixture();
    if (!found) this.skip();
    places = found!;
  });
  beforeEach(() => {
    location = places.fresh();
    clock.now = 1_000_000;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((stores) => stores.close()));
  });
  return {
    clock,
    async open(rateLimit = 3): Promise<WebmailStores> {
      const stores = await openWebmailStores({
        ...location,
        idleMillis: IDLE_MS,
        rateLimit: { limit: rateLimit, windowMillis: RATE_WINDOW_MS },
        now: () => clock.now,
      });
      opened.push(stores);
      return stores;
    },
    /** Where this test's stores are, to read what they wrote without the adapters. */
    location: (): StoreLocation => location,
    async closeAll(): Promise<void> {
      await Promise.all(opened.splice(0).map((stores) => stores.close()));
    },
  };
}
