import { FencedOffError } from '../../shared/fencing.ts';
import { getHeapStatistics } from 'node:v8';
import type { EventStore } from '../../events/event-store.ts';
import { silentLogger, type Logger } from '../../shared/logger.ts';
import type { ReadStore } from '../stores/read-store.ts';
import { FILTERS_PROJECTION } from './filter-projector.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import { DEFAULT_POLICY, ProjectionRunner, type RunnerPolicy } from './projection-runner.ts';
import { CatchUpLoop, FINISHED, WORKED } from './catch-up-loop.ts';

/**
 * How much of the heap a fill may fill with views kept from batch to batch: a quarter of the heap limit,
 * at most 512 MiB. A rebuild of up to some 650,000 filters like the benchmark log's (about 4 million events)
 * then never reads a view back from the read model; a longer one reads back those it had to let go.
 */
const FILL_CACHE_BYTES = Math.min(512 * 1024 * 1024, Math.floor(getHeapStatistics().heap_size_limit / 4));

/**
 * Nobody waits for a fill, so its batches are long: a filter changed many times in one batch is stored
 * once, and each transaction's fixed cost (writing the touched pages) is shared by many events. A batch
 * ends at `maxViews` changed views, which bounds how long its transaction keeps other writers of the file
 * waiting (a few seconds at most); the log is read a page at a time.
 */
export const FILL_POLICY: RunnerPolicy = {
  ...DEFAULT_POLICY,
  pageSize: 4096,
  batchSize: 1_048_576,
  maxViews: 200_000,
  viewsPerTransaction: 512,
  pauseBetweenTransactionsMs: 10,
  cache: { views: Infinity, bytes: FILL_CACHE_BYTES },
};

/** Past every position either log hands out: `upTo` meaning "whatever the log holds when the fill gets there". */
export const END_OF_LOG = 1n << 160n;

export interface FillProgress {
  /** Events this fill has folded so far (stored at the end of their batch). */
  readonly events: number;
  readonly position: bigint;
  readonly upTo: bigint;
}

export interface FillOptions {
  readonly onProgress?: (progress: FillProgress) => void;
  readonly logger?: Logger;
  readonly observer?: ProjectionObserver;
  readonly policy?: RunnerPolicy;
}

export class FillError extends Error {
  override readonly name = 'FillError';
}

/**
 * Projects the log into a generation that nobody queries yet, from its own checkpoint up to and including
 * `upTo`, announcing nothing, through the same batches as the live projector (bad commits are parked the
 * same way). It never goes past `upTo` (the live checkpoint): events after it are the live projector's to
 * project and announce, so a swap neither loses nor repeats an announcement. An unreachable store ends
 * the fill after the retries the policy allows for parking.
 */
export async function fillGeneration(events: EventStore, target: ReadStore, upTo: bigint | null, options: FillOptions = {}): Promise<number> {
  if (upTo === null) return 0;
  const policy = options.policy ?? FILL_POLICY;
  const runner = new ProjectionRunner(
    events,
    target,
    FILTERS_PROJECTION,
    await target.checkpoint(FILTERS_PROJECTION),
    options.logger ?? silentLogger,
    options.observer ?? ignoreProjection,
    policy,
  );
  let applied = 0;
  const loop = new CatchUpLoop(
    async () => {
      if (runner.position !== null && runner.position >= upTo) return FINISHED;
      // A batch may take seconds: progress is told page by page, as events are folded.
      const result = await runner.step(upTo, (folded, position) => options.onProgress?.({ events: applied + folded, position, upTo }));
      if (result.kind === 'idle') return FINISHED;
      if (result.kind === 'failed') {
        const failure = runner.failure;
        // A successor holds the lease: retrying cannot help, and the successor fills the generation itself.
        if (failure?.error.startsWith(`${FencedOffError.name}:`)) throw new FillError(`could not fill the read models: ${failure.error}`);
        // A bad commit is parked on its last try; failing longer than that is an outage or a systemic fault.
        if ((failure?.failures ?? 0) > policy.attemptsBeforeParking)
          throw new FillError(`could not fill the read models: ${failure?.error ?? 'unknown error'}`);
        return { kind: 'retry', inMs: result.retryInMs };
      }
      applied += result.batch.events;
      options.onProgress?.({ events: applied, position: result.batch.position, upTo });
      // The projector process fills while it serves: the loop lets requests in between batches.
      return WORKED;
    },
    { idleRecheckMs: 0 },
  );
  loop.start();
  await loop.done;
  return applied;
}
