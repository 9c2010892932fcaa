import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { DeadlineExceededError, type EventStoreDBClient } from '@eventstore/db-client';
import { retryDelayMs as commandRetryDelayMs } from '../../src/commands/handle-command.ts';
import { EsdbAppendWatch } from '../../src/events/esdb-append-watch.ts';
import { EsdbLeaderConnection } from '../../src/events/esdb-leader-connection.ts';
import { appendExactlyOnce } from '../../src/events/esdb-unknown-outcome.ts';
import { EventStoreUnavailableError } from '../../src/events/event-store.ts';
import { RedisTimelineNotifier } from '../../src/notifications/redis-timeline-notifier.ts';
import { defaultRetry as announcerRetryDelayMs } from '../../src/projections/announcer/announcer.ts';
import { DEFAULT_POLICY } from '../../src/projections/runtime/runner-policy.ts';
import { RedisRateLimitStore } from '../../src/rate-limits/redis-rate-limit-store.ts';
import { retryWhileBusy } from '../../src/shared/sqlite-busy.ts';

// Every back-off of src pinned by its delays, so that moving them onto one helper is shown to change none.
// The loops run on node:test's mocked setTimeout and Date (the clock seam): each pause is read off the
// mocked clock between two tries, and no test waits for real time.

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `start` on the mocked clock, firing each pause it waits for, until it settles (or `enough` says stop). */
async function onMockedClock<T>(start: () => Promise<T>, enough: () => boolean = () => false): Promise<PromiseSettledResult<T>> {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  let outcome: PromiseSettledResult<T> | undefined;
  start().then(
    (value) => (outcome = { status: 'fulfilled', value }),
    (reason: unknown) => (outcome = { status: 'rejected', reason }),
  );
  for (let rounds = 0; outcome === undefined && !enough(); rounds++) {
    assert.ok(rounds < 10_000, 'the loop neither settled nor paused');
    await turn();
    mock.timers.runAll();
  }
  return outcome ?? { status: 'fulfilled', value: undefined as T };
}

const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - times[i]!);
const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('back-off policies, pinned by their delays', () => {
  afterEach(() => mock.timers.reset());

  it('a command that lost a race: 5 ms doubling per attempt, plus up to 10 ms of jitter, without a ceiling', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10].map((attempt) => commandRetryDelayMs(attempt, () => 0)),
      [5, 10, 20, 40, 80, 5120],
    );
    assert.deepEqual(
      [0, 1, 2].map((attempt) => commandRetryDelayMs(attempt, () => 0.5)),
      [10, 15, 25],
    );
    assert.equal(
      commandRetryDelayMs(0, () => 0.999),
      5 + 0.999 * 10,
    );
  });

  it('a failing projection step: 0.1 s doubling per failure in a row, at most 1 s (the idle re-check)', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 50].map((failures) => DEFAULT_POLICY.retryDelayMs(failures)),
      [100, 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000],
    );
  });

  it('an announcer whose transport or store failed: 50 ms doubling per failure in a row, at most 2 s', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 2000].map((failures) => announcerRetryDelayMs(failures)),
      [50, 50, 100, 200, 400, 800, 1600, 2000, 2000],
    );
  });

  it('both Redis clients reconnect after 50 ms doubling per retry, at most 2 s', async () => {
    const notifier = RedisTimelineNotifier.connect('redis://127.0.0.1:1');
    const counters = await RedisRateLimitStore.connect('redis://127.0.0.1:1');
    try {
      for (const holder of [notifier, counters]) {
        const client = (holder as unknown as { client: { options: { socket: { reconnectStrategy: (retries: number) => number } } } }).client;
        const strategy = client.options.socket.reconnectStrategy;
        assert.deepEqual(
          [0, 1, 2, 3, 4, 5, 6, 1100].map((retries) => strategy(retries)),
          [50, 100, 200, 400, 800, 1600, 2000, 2000],
        );
      }
    } finally {
      await notifier.close();
      await counters.close();
    }
  });

  it('a busy SQLite file on the main thread: 1 ms doubling to 100 ms, tried until 5 s have passed', async () => {
    const tries: number[] = [];
    const outcome = await onMockedClock(() =>
      retryWhileBusy(() => {
        tries.push(Date.now());
        throw busy();
      }),
    );
    assert.equal(outcome.status, 'rejected');
    assert.equal(outcome.reason.code, 'SQLITE_BUSY');
    assert.deepEqual(gaps(tries).slice(0, 9), [1, 2, 4, 8, 16, 32, 64, 100, 100]);
    assert.ok(
      gaps(tries)
        .slice(7)
        .every((gap) => gap === 100),
    );
    // The last try is the first at or past the limit; the one before it was still inside.
    assert.equal(tries.at(-1), 5027);
    assert.ok(tries.at(-2)! < 5000);
  });

  it("the read models' live writes: the same, with pauses of at most 4 ms", async () => {
    const tries: number[] = [];
    const outcome = await onMockedClock(() =>
      retryWhileBusy(
        () => {
          tries.push(Date.now());
          if (tries.length < 8) throw busy();
          return 'written';
        },
        5000,
        4,
      ),
    );
    assert.deepEqual(outcome, { status: 'fulfilled', value: 'written' });
    assert.deepEqual(gaps(tries), [1, 2, 4, 4, 4, 4, 4]);
  });

  it('an EventStoreDB append of unknown outcome: 50 ms doubling to 0.5 s, no pause that would end past the budget', async () => {
    const tries: number[] = [];
    const client = {
      appendToStream: () => {
        tries.push(Date.now());
        return Promise.reject(new DeadlineExceededError());
      },
    } as unknown as EventStoreDBClient;
    const outcome = await onMockedClock(() => appendExactlyOnce(new EsdbLeaderConnection(client), 'filter-x', [], 'no_stream', 2000));
    assert.equal(outcome.status, 'rejected');
    assert.ok(outcome.reason instanceof EventStoreUnavailableError);
    assert.deepEqual(gaps(tries), [50, 100, 200, 400, 500, 500]);
    // 1250 + 500 < 2000 was paused for; 1750 + 500 was not.
    assert.equal(tries.at(-1), 1750);
  });

  it("the EventStoreDB watch's resubscriptions: 0.1 s doubling to 1 s, back to 0.1 s once an event came", async () => {
    const subscribed: number[] = [];
    const failing = (events: number) => ({
      unsubscribe: () => Promise.resolve(),
      async *[Symbol.asyncIterator]() {
        for (let i = 0; i < events; i++) yield { event: { position: { commit: BigInt(subscribed.length), prepare: 0n } } };
        throw new Error('the server went away');
      },
    });
    // The 8th subscription hears one event before it fails: the pause after it starts again.
    const client = {
      subscribeToAll: () => {
        subscribed.push(Date.now());
        return failing(subscribed.length === 8 ? 1 : 0);
      },
    } as unknown as EventStoreDBClient;
    const watch = new EsdbAppendWatch(client, ['filter-']);
    let heard = 0;
    try {
      await onMockedClock(
        () => {
          watch.onAppend(() => (heard += 1));
          return new Promise<void>(() => {});
        },
        () => subscribed.length >= 12,
      );
    } finally {
      watch.close();
    }
    assert.deepEqual(gaps(subscribed).slice(0, 11), [100, 200, 400, 800, 1000, 1000, 1000, 100, 200, 400, 800]);
    assert.ok(heard > 0);
  });
});
