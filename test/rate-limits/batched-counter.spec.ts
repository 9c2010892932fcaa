import assert from 'node:assert/strict';
import { stat } from 'node:fs';
import { BatchedCounter } from '../../src/rate-limits/batched-counter.ts';
import type { CounterIncrement, RateLimitStore } from '../../src/rate-limits/rate-limit-store.ts';
import { StoreUnavailableError } from '../../src/shared/store-unavailable.ts';

/** A store whose calls answer only when the test says: each call is recorded with a way to answer it. */
class HeldStore implements RateLimitStore {
  readonly calls: { increments: readonly CounterIncrement[]; answer: (totals: readonly number[]) => void }[] = [];
  incrementAll(increments: readonly CounterIncrement[]): Promise<readonly number[]> {
    return new Promise((resolve) => this.calls.push({ increments, answer: resolve }));
  }
  async close(): Promise<void> {}
}

const ENDS = 1_000_000;
const shape = (increments: readonly CounterIncrement[]) => increments.map(({ key, by }) => `${key}+${by}`);

describe('BatchedCounter: one store call per event-loop turn, a 503 at the deadline', () => {
  it('sends the counts of one turn as one call, each key once, and hands each request its own count', async () => {
    const store = new HeldStore();
    const counter = new BatchedCounter(store, 10_000);
    const counts = Promise.all([counter.increment('a', ENDS), counter.increment('b', ENDS), counter.increment('a', ENDS)]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      store.calls.map((c) => shape(c.increments)),
      [['a+2', 'b+1']],
    );
    store.calls[0]!.answer([7, 1]);
    assert.deepEqual(await counts, [6, 1, 7]);
  });

  it('refuses with StoreUnavailableError at the deadline, keeps one call in flight, and drops counts never sent', async () => {
    const store = new HeldStore();
    const counter = new BatchedCounter(store, 30);
    const first = counter.increment('a', ENDS);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.calls.length, 1);
    // Behind the call in flight: never sent while it hangs, refused at its own deadline.
    const second = counter.increment('a', ENDS);
    await assert.rejects(first, (error: Error) => error instanceof StoreUnavailableError && error.store === 'the rate-limit counters');
    await assert.rejects(second, StoreUnavailableError);
    assert.equal(store.calls.length, 1, 'nothing else is sent while the first call hangs');
    // The store wakes: the late answer goes to nobody, and the next count is sent alone, the refused one not in it.
    store.calls[0]!.answer([1]);
    const third = counter.increment('a', ENDS);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      store.calls.map((c) => shape(c.increments)),
      [['a+1'], ['a+1']],
    );
    store.calls[1]!.answer([2]);
    assert.equal(await third, 2);
  });

  it('answers an adapter that throws instead of rejecting, and goes on counting', async () => {
    let calls = 0;
    const store: RateLimitStore = {
      incrementAll: (increments) => {
        calls += 1;
        if (calls === 1) throw new StoreUnavailableError('down');
        return Promise.resolve(increments.map(() => 1));
      },
      close: async () => {},
    };
    const counter = new BatchedCounter(store, 10_000);
    await assert.rejects(counter.increment('a', ENDS), /down/);
    assert.equal(await counter.increment('a', ENDS), 1);
  });

  it('counts a reply that arrived while the event loop was busy past the deadline, instead of a 503', async () => {
    // The reply is an I/O callback (the thread pool's, as a socket's would be): ready, but not yet run, when
    // the loop comes back from a stall longer than the deadline, where the timers phase runs first.
    const store: RateLimitStore = {
      incrementAll: (increments) =>
        new Promise((resolve) => {
          stat('.', () => resolve(increments.map(() => 7)));
          const until = performance.now() + 60;
          while (performance.now() < until); // the loop is busy elsewhere, past the 20 ms deadline
        }),
      close: async () => {},
    };
    assert.equal(await new BatchedCounter(store, 20).increment('a', ENDS), 7);
  });
});
