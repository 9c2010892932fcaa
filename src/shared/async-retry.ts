import { setTimeout as sleep } from 'node:timers/promises';

/**
 * An exponential back-off, in the terms of Emmett's `asyncRetry` options (event-driven-io/emmett,
 * src/packages/emmett/src/utils/retry.ts, which hands them to async-retry/node-retry): the n-th pause
 * (from 0) is `firstMs * factor ** n`, at most `maxMs`, plus a uniform jitter below `jitterMs`. Jitter is
 * added, not multiplied as node-retry's `randomize` does: the command handler's 5 ms pauses need their
 * 10 ms spread even at the first retry.
 */
export interface BackOff {
  readonly firstMs: number;
  /** No ceiling when not given. */
  readonly maxMs?: number;
  /** 2 when not given. */
  readonly factor?: number;
  /** None when not given. */
  readonly jitterMs?: number;
}

/** The pause before retry `retry` (0 for the pause after the first failure). */
export function backOffMs(backOff: BackOff, retry: number, random: () => number = Math.random): number {
  const grown = backOff.firstMs * (backOff.factor ?? 2) ** retry;
  const pause = backOff.maxMs === undefined ? grown : Math.min(backOff.maxMs, grown);
  return backOff.jitterMs ? pause + random() * backOff.jitterMs : pause;
}

/** Time as a retry loop sees it; tests give their own. */
export interface RetryClock {
  now(): number;
  pause(ms: number): Promise<void>;
}

export const systemClock: RetryClock = { now: () => Date.now(), pause: (ms) => sleep(ms) };

/** What `shouldRetryError` is told of the loop when a try failed. */
export interface RetryState {
  /** Retries made so far: 0 when the first try failed. */
  readonly retries: number;
  /** Since the first try began. */
  readonly elapsedMs: number;
  /** The pause that would come before the next try. */
  readonly pauseMs: number;
}

export interface AsyncRetryOptions {
  readonly backOff: BackOff;
  /** Whether to try again after this failure; false lets the error through. Budgets and counts are judged here. */
  readonly shouldRetryError: (error: unknown, state: RetryState) => boolean;
  readonly clock?: RetryClock;
  readonly random?: () => number;
}

/**
 * Runs `call` until it succeeds or `shouldRetryError` declines, pausing by `backOff` between tries: the
 * one retry loop of src, as Emmett's `asyncRetry` is of Emmett. `call` must be safe to run again after it
 * failed.
 */
export async function asyncRetry<T>(call: () => T | Promise<T>, options: AsyncRetryOptions): Promise<T> {
  const clock = options.clock ?? systemClock;
  const start = clock.now();
  for (let retries = 0; ; retries++) {
    try {
      return await call();
    } catch (error) {
      await clock.pause(pauseAfter(error, { retries, elapsedMs: clock.now() - start }, options));
    }
  }
}

/** The pause before the next try, or `error` thrown again when the policy declines: both loops' one rule. */
function pauseAfter(error: unknown, tried: Omit<RetryState, 'pauseMs'>, options: Omit<AsyncRetryOptions, 'clock'>): number {
  const pauseMs = backOffMs(options.backOff, tried.retries, options.random);
  if (!options.shouldRetryError(error, { ...tried, pauseMs })) throw error;
  return pauseMs;
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * `asyncRetry`'s loop for the one place that may not yield: opening a SQLite file, which is synchronous and runs
 * once, at start. Its pauses sleep the thread (Atomics.wait), as SQLite's own busy wait does.
 */
export function retrySync<T>(call: () => T, options: Omit<AsyncRetryOptions, 'clock'>): T {
  const start = Date.now();
  for (let retries = 0; ; retries++) {
    try {
      return call();
    } catch (error) {
      Atomics.wait(pauseCell, 0, 0, pauseAfter(error, { retries, elapsedMs: Date.now() - start }, options));
    }
  }
}
