import { backOffMs } from '../../shared/async-retry.ts';
import type { ViewCacheBounds } from './view-cache.ts';

/** How a projection runner sizes its batches, stores them, and treats failures. */
export interface RunnerPolicy {
  /** Events per read-model transaction, at most (a commit read whole may pass it). */
  readonly batchSize: number;
  /** Events per read of the log; the batch size when not given. */
  readonly pageSize?: number;
  /** Changed views after which a batch is stored even before it has `batchSize` events: bounds how long its transaction takes. */
  readonly maxViews?: number;
  /**
   * For a generation nobody reads yet (a fill): store a batch in transactions of at most this many views,
   * pausing `pauseBetweenTransactionsMs` between them, so the write lock is never held for long.
   */
  readonly viewsPerTransaction?: number;
  readonly pauseBetweenTransactionsMs?: number;
  /** The views kept from batch to batch, so they are not read back from the read model; the live bounds when not given. */
  readonly cache?: ViewCacheBounds;
  /** Tries of one commit on its own before it is parked (only for errors that are not unavailability). */
  readonly attemptsBeforeParking: number;
  /** Parked commits in a row, with no view stored between them, after which parking stops: that looks systemic. */
  readonly parkedInARowLimit: number;
  /** Pause before the next try after `failures` failures in a row. */
  readonly retryDelayMs: (failures: number) => number;
}

export const DEFAULT_POLICY: RunnerPolicy = {
  batchSize: 512,
  attemptsBeforeParking: 5,
  parkedInARowLimit: 10,
  // At most the idle re-check (1 s): once a store is back, the read models follow within a second, well
  // inside a write's 5 s wait for them; a longer pause made writes right after an outage answer stale.
  retryDelayMs: (failures) => backOffMs({ firstMs: 100, maxMs: 1000 }, Math.max(0, failures - 1)),
};
