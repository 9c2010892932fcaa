import { StoreUnavailableError } from '../shared/store-unavailable.ts';
import type { CounterIncrement, RateLimitStore } from './rate-limit-store.ts';

/**
 * How long a request waits for its count before it is answered 503. A request counts in at most two
 * throttles one after the other, so two waits stay under the 100 ms the docs promise.
 */
export const COUNT_DEADLINE_MS = 40;

/** Distinct keys per store call: bounds the work of one SQLite transaction on the event loop. */
const MAX_KEYS_PER_BATCH = 512;

interface Waiter {
  readonly resolve: (count: number) => void;
  readonly reject: (error: Error) => void;
}

interface Batch {
  readonly keys: Map<string, { expiresAtMs: number; waiters: Waiter[] }>;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
}

const unavailable = () => new StoreUnavailableError(`rate-limit counters: no answer within ${COUNT_DEADLINE_MS} ms`, { store: 'the rate-limit counters' });

/**
 * The counts of every request of an event-loop turn, sent to the store as one call: each key once, with
 * how many requests counted in it, and each request handed its own count (the store's new total minus the
 * requests after it), so counts stay exact and shared between processes while the store does one write per
 * turn instead of one per request. One call is in flight at a time; while it is, the next turn's counts
 * gather behind it. A request whose count has not come back within COUNT_DEADLINE_MS gets
 * StoreUnavailableError (a 503): a frozen or locked store is never waited for longer. A count not sent
 * by then is dropped; one already sent may still land when the store wakes (it then counts against the
 * client, never for it).
 */
export class BatchedCounter {
  private readonly queue: Batch[] = [];
  private sending = false;
  private scheduled = false;

  constructor(
    private readonly store: RateLimitStore,
    private readonly deadlineMs = COUNT_DEADLINE_MS,
  ) {}

  increment(key: string, expiresAtMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const batch = this.openBatch();
      let entry = batch.keys.get(key);
      if (!entry) {
        entry = { expiresAtMs, waiters: [] };
        batch.keys.set(key, entry);
      }
      entry.waiters.push({ resolve, reject });
      if (!this.scheduled && !this.sending) {
        this.scheduled = true;
        // After the current turn's I/O callbacks, so that every request they started joins this batch.
        setImmediate(() => {
          this.scheduled = false;
          this.sendNext();
        });
      }
    });
  }

  private openBatch(): Batch {
    const last = this.queue.at(-1);
    // The batch at the head is the one in flight while sending: later counts wait in the next one.
    if (last && !last.settled && !(this.sending && last === this.queue[0]) && last.keys.size < MAX_KEYS_PER_BATCH) return last;
    const batch: Batch = { keys: new Map(), timer: undefined, settled: false };
    // The deadline gives way to one poll phase first: on a busy loop a reply may already be waiting in the
    // socket when the timer fires (timers run before I/O callbacks), and a count that came back is no outage.
    batch.timer = setTimeout(() => setImmediate(() => this.expire(batch)), this.deadlineMs);
    this.queue.push(batch);
    return batch;
  }

  private expire(batch: Batch): void {
    if (batch.settled) return;
    batch.settled = true;
    const error = unavailable();
    for (const { waiters } of batch.keys.values()) for (const waiter of waiters) waiter.reject(error);
    // Not sent yet: nothing was counted, and nobody waits for it any more.
    const at = this.queue.indexOf(batch);
    if (at >= 0 && !(this.sending && at === 0)) this.queue.splice(at, 1);
  }

  private sendNext(): void {
    const batch = this.queue[0];
    if (this.sending || !batch) return;
    this.sending = true;
    const increments: CounterIncrement[] = [...batch.keys].map(([key, { expiresAtMs, waiters }]) => ({ key, by: waiters.length, expiresAtMs }));
    // An adapter that throws instead of rejecting is answered the same way.
    const sent = Promise.resolve().then(() => this.store.incrementAll(increments));
    sent.then(
      (totals) => this.settle(batch, (waiters, i) => waiters.forEach((w, n) => w.resolve(totals[i]! - waiters.length + 1 + n))),
      (error: unknown) => this.settle(batch, (waiters) => waiters.forEach((w) => w.reject(error as Error))),
    );
  }

  private settle(batch: Batch, answer: (waiters: readonly Waiter[], index: number) => void): void {
    clearTimeout(batch.timer);
    if (!batch.settled) {
      batch.settled = true;
      [...batch.keys.values()].forEach(({ waiters }, index) => answer(waiters, index));
    }
    this.queue.shift();
    this.sending = false;
    this.sendNext();
  }
}
