import type { EventStore, RecordedEvent } from '../../events/event-store.ts';
import { EventStoreUnavailableError } from '../../events/event-store.ts';
import type { Logger } from '../../shared/logger.ts';
import { ReadStoreUnavailableError, type ParkedEvent, type ReadStore } from '../stores/read-store.ts';
import { BatchProjection, PendingBatch, type AppliedBatch } from './batch-projection.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import type { ViewCacheBounds } from './view-cache.ts';

export interface RunnerPolicy {
  /** Events per read-model transaction, at most (a commit read whole may pass it). */
  readonly batchSize: number;
  /** Events per read of the log; the batch size when not given. */
  readonly pageSize?: number;
  /** Changed views after which a batch is stored even before it has `batchSize` events: bounds how long its transaction takes. */
  readonly maxViews?: number;
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
  retryDelayMs: (failures) => Math.min(5000, 100 * 2 ** Math.max(0, failures - 1)),
};

/** Why projection is not moving: what /health reports and the log says. */
export interface StepFailure {
  readonly stage: 'read' | 'apply';
  /** Position of the first event not yet applied, or of the checkpoint when reading failed. */
  readonly position: string | null;
  readonly error: string;
  readonly failures: number;
  readonly since: string;
}

export type StepResult =
  | { readonly kind: 'idle' }
  | { readonly kind: 'applied'; readonly batch: AppliedBatch; readonly parked: number }
  | { readonly kind: 'failed'; readonly retryInMs: number; readonly unavailable: boolean };

const describe = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
/** By name: the driver adapters are loaded on demand and may come from another module instance. */
const UNAVAILABLE = new Set([EventStoreUnavailableError.name, ReadStoreUnavailableError.name]);
const isUnavailable = (error: unknown) => error instanceof Error && UNAVAILABLE.has(error.name);
/** How often a failure that keeps happening is logged again. */
const LOG_AGAIN_MS = 30_000;

/**
 * Moves one projection through the log, a batch at a time, from a checkpoint. A batch that fails is
 * retried commit by commit, so one bad commit cannot hold back the others in its batch. A commit that
 * keeps failing for a reason other than an unreachable store is parked after bounded retries: recorded
 * with the checkpoint past it, logged with its position and counted, so every other account keeps
 * moving. An unreachable store is never a reason to park: the runner waits for it, retrying with back-off.
 */
export class ProjectionRunner {
  private readonly batches: BatchProjection;
  private isolateUntil: bigint | null = null;
  private failures = 0;
  /** Failures since the last success that were not outages: only these lead to parking. */
  private faults = 0;
  private parkedInARow = 0;
  private failing: StepFailure | null = null;
  private lastLogged = 0;

  constructor(
    private readonly events: EventStore,
    reads: ReadStore,
    projection: string,
    public position: bigint | null,
    private readonly logger: Logger,
    private readonly observer: ProjectionObserver = ignoreProjection,
    private readonly policy: RunnerPolicy = DEFAULT_POLICY,
  ) {
    this.batches = new BatchProjection(reads, projection, logger, policy.cache, position === null);
  }

  /** Null while steps succeed; otherwise why the last one failed. */
  get failure(): StepFailure | null {
    return this.failing;
  }

  /**
   * Reads what follows the checkpoint (never past `upTo`), a page at a time up to the batch size, and
   * stores it as one batch: one read-model transaction with the checkpoint at its end. `onPage` hears
   * of every page folded into the batch (events so far, last position), before anything is stored.
   */
  async step(upTo: bigint | null = null, onPage?: (events: number, position: bigint) => void): Promise<StepResult> {
    if (this.isolateUntil !== null && this.position !== null && this.position >= this.isolateUntil) this.isolateUntil = null;
    const isolating = this.isolateUntil !== null;
    const pageSize = isolating ? 1 : Math.min(this.policy.pageSize ?? this.policy.batchSize, this.policy.batchSize);
    const pending = new PendingBatch();
    let first: RecordedEvent | undefined;
    let unit: readonly RecordedEvent[] = [];
    for (;;) {
      let page: readonly RecordedEvent[];
      try {
        page = await this.events.readAll({ after: pending.last ?? this.position, limit: pageSize });
      } catch (error) {
        return this.failed('read', error, this.position);
      }
      const more = page.length >= pageSize;
      if (upTo !== null) page = page.filter((e) => e.position <= upTo);
      const head = page[0];
      if (!head) break;
      if (!first) {
        first = head;
        // Every event has a position of its own (the port's contract), so the unit to park is the first event.
        unit = page.filter((e) => e.position === head.position);
      }
      try {
        await this.batches.fold(pending, page);
      } catch (error) {
        return this.applyFailed(error, first, unit, page.at(-1)!.position);
      }
      onPage?.(pending.events, pending.last!);
      const full = pending.events >= this.policy.batchSize || pending.changed >= (this.policy.maxViews ?? Infinity);
      if (isolating || !more || full || page.at(-1)!.position === upTo) break;
    }
    if (!first) return { kind: 'idle' };
    try {
      const batch = await this.batches.commit(pending);
      this.position = batch.position;
      this.succeeded(batch.views);
      return { kind: 'applied', batch, parked: 0 };
    } catch (error) {
      return this.applyFailed(error, first, unit, pending.last!);
    }
  }

  /** A batch of several commits is tried again commit by commit; a single commit is retried, then parked. */
  private applyFailed(error: unknown, first: RecordedEvent, unit: readonly RecordedEvent[], last: bigint): Promise<StepResult> | StepResult {
    if (last > unit.at(-1)!.position) {
      this.isolateUntil = last;
      this.observer.stepFailed('apply');
      this.logger.warn(
        { err: error, from: first.position.toString(), to: this.isolateUntil.toString() },
        'a projection batch failed; retrying its commits one by one',
      );
      return { kind: 'failed', retryInMs: 0, unavailable: isUnavailable(error) };
    }
    if (this.faults + 1 >= this.policy.attemptsBeforeParking && !isUnavailable(error) && this.parkedInARow < this.policy.parkedInARowLimit) {
      return this.park(unit, error);
    }
    return this.failed('apply', error, first.position);
  }

  private async park(unit: readonly RecordedEvent[], error: unknown): Promise<StepResult> {
    const parkedAt = new Date().toISOString();
    const parked: ParkedEvent[] = unit.map((e) => ({
      position: e.position,
      streamName: e.streamName,
      revision: e.revision,
      type: e.type,
      error: describe(error),
      parkedAt,
    }));
    try {
      await this.batches.park(parked);
    } catch (parkError) {
      return this.failed('apply', parkError, unit[0]!.position);
    }
    const position = unit.at(-1)!.position;
    this.logger.error(
      { err: error, position: position.toString(), stream: unit[0]!.streamName, type: unit[0]!.type, attempts: this.failures + 1 },
      'projection gave up on an event and parked it; the read models skip it (see `projections parked`)',
    );
    this.observer.eventsParked(parked.length);
    this.position = position;
    this.failures = 0;
    this.faults = 0;
    this.failing = null;
    this.parkedInARow += 1;
    return { kind: 'applied', batch: { position, announcements: [], events: 0, views: 0 }, parked: parked.length };
  }

  private succeeded(viewsStored: number): void {
    if (this.failing) this.logger.info({ position: this.position?.toString() ?? null, failures: this.failures }, 'projection moves again');
    this.failures = 0;
    this.faults = 0;
    this.failing = null;
    // Only a stored view shows that the store and the code work; skipped events prove nothing.
    if (viewsStored > 0) this.parkedInARow = 0;
  }

  private failed(stage: StepFailure['stage'], error: unknown, position: bigint | null): StepResult {
    this.failures += 1;
    // A commit is parked only after it failed on a store that answered; an outage says nothing about it.
    if (!isUnavailable(error)) this.faults += 1;
    this.observer.stepFailed(stage);
    const now = Date.now();
    this.failing = {
      stage,
      position: position?.toString() ?? null,
      error: describe(error),
      failures: this.failures,
      since: this.failing?.since ?? new Date(now).toISOString(),
    };
    if (this.failures === 1 || now - this.lastLogged >= LOG_AGAIN_MS) {
      this.lastLogged = now;
      const stuck = this.parkedInARow >= this.policy.parkedInARowLimit ? `; ${this.parkedInARow} commits parked in a row, so no more are parked` : '';
      const fields = { stage, position: position?.toString() ?? null, failures: this.failures };
      if (this.failures === 1) this.logger.error({ ...fields, err: error }, `projection step failed; retrying${stuck}`);
      else this.logger.error({ ...fields, error: describe(error) }, `projection step still failing; retrying${stuck}`);
    }
    return { kind: 'failed', retryInMs: this.policy.retryDelayMs(this.failures), unavailable: isUnavailable(error) };
  }
}
