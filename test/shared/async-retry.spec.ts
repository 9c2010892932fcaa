import assert from 'node:assert/strict';
import { asyncRetry, backOffMs, retrySync, type RetryClock, type RetryState } from '../../src/shared/async-retry.ts';

/** A clock that moves only by the pauses asked of it, and records them. */
function steppedClock(): RetryClock & { readonly pauses: number[] } {
  let now = 1_000;
  const pauses: number[] = [];
  return { pauses, now: () => now, pause: (ms) => ((now += ms), pauses.push(ms), Promise.resolve()) };
}

describe('asyncRetry, the one retry loop of src', () => {
  it('grows each pause by the factor from the first, up to the ceiling', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((n) => backOffMs({ firstMs: 3, maxMs: 40, factor: 3 }, n)),
      [3, 9, 27, 40, 40],
    );
    assert.equal(backOffMs({ firstMs: 1 }, 60), 2 ** 60);
    assert.equal(backOffMs({ firstMs: 1, maxMs: 7 }, 5000), 7);
  });

  it('adds a jitter below jitterMs, drawn from the given random source', () => {
    assert.equal(
      backOffMs({ firstMs: 4, jitterMs: 10 }, 1, () => 0.25),
      8 + 2.5,
    );
    assert.equal(
      backOffMs({ firstMs: 4 }, 1, () => 0.25),
      8,
    );
  });

  it('returns the first success, after pausing by the back-off between failed tries', async () => {
    const clock = steppedClock();
    const seen: RetryState[] = [];
    let tries = 0;
    const result = await asyncRetry(
      () => {
        tries += 1;
        if (tries < 4) throw new Error(`try ${tries}`);
        return 'done';
      },
      { backOff: { firstMs: 10, maxMs: 25 }, clock, shouldRetryError: (_error, state) => (seen.push(state), true) },
    );
    assert.equal(result, 'done');
    assert.deepEqual(clock.pauses, [10, 20, 25]);
    assert.deepEqual(seen, [
      { retries: 0, elapsedMs: 0, pauseMs: 10 },
      { retries: 1, elapsedMs: 10, pauseMs: 20 },
      { retries: 2, elapsedMs: 30, pauseMs: 25 },
    ]);
  });

  it('lets the error through, unpaused, as soon as shouldRetryError declines', async () => {
    const clock = steppedClock();
    const refused = new Error('refused');
    let tries = 0;
    await assert.rejects(
      asyncRetry(
        () => {
          tries += 1;
          return Promise.reject(tries < 3 ? new Error('busy') : refused);
        },
        { backOff: { firstMs: 1 }, clock, shouldRetryError: (error) => error !== refused },
      ),
      (error) => error === refused,
    );
    assert.equal(tries, 3);
    assert.deepEqual(clock.pauses, [1, 2]);
  });

  it('judges a budget on the elapsed time it is told, so a loop stops on its own clock', async () => {
    const clock = steppedClock();
    let tries = 0;
    await assert.rejects(
      asyncRetry(
        () => {
          tries += 1;
          throw new Error('down');
        },
        { backOff: { firstMs: 100 }, clock, shouldRetryError: (_e, { elapsedMs, pauseMs }) => elapsedMs + pauseMs < 1000 },
      ),
      /down/,
    );
    // 0 +100 +200 +400 = 700; 700 + 800 would pass 1000.
    assert.deepEqual(clock.pauses, [100, 200, 400]);
    assert.equal(tries, 4);
  });
});

describe('retrySync, for the one call that may not yield (opening a SQLite file)', () => {
  it('tries again after a refused failure and returns what the call returns', () => {
    let calls = 0;
    const states: RetryState[] = [];
    const value = retrySync(
      () => {
        calls += 1;
        if (calls < 3) throw new Error('busy');
        return 'open';
      },
      { backOff: { firstMs: 1 }, shouldRetryError: (_error, state) => (states.push(state), true) },
    );
    assert.equal(value, 'open');
    assert.deepEqual(
      states.map((state) => [state.retries, state.pauseMs]),
      [
        [0, 1],
        [1, 2],
      ],
    );
  });

  it('lets the error through once the policy declines', () => {
    let calls = 0;
    assert.throws(
      () =>
        retrySync(
          () => {
            calls += 1;
            throw new Error(`failure ${calls}`);
          },
          { backOff: { firstMs: 1 }, shouldRetryError: (_error, { retries }) => retries < 2 },
        ),
      /failure 3/,
    );
  });
});
