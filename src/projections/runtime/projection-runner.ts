import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore, ReadAllPage, RecordedEvent } from '../../events/event-store.ts';
import { EVENT_STORE } from '../../events/event-store.ts';
import type { Logger } from '../../shared/logger.ts';
import { isStoreUnavailable } from '../../shared/store-unavailable.ts';
import { READ_MODELS, type ParkedEvent, type ProjectionTarget } from '../stores/read-store.ts';
import { BatchProjection, PendingBatch, type AppliedBatch, type StoreInChunks } from './batch-projection.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import { endsCommit, readRestOfCommit, throughFirstCommitEnd } from './commit-boundary.ts';
import { DEFAULT_POLICY, type RunnerPolicy } from './runner-policy.ts';
import { FailureStreak } from './failure-streak.ts';

export { DEFAULT_POLICY, type RunnerPolicy } from './runner-policy.ts';

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
  | { readonly kind: 'failed'; readonly retryInMs: number };

const describe = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
/** Its own two stores only: what else fails in a step is a fault of the step. */
const isUnavailable = (error: unknown) => isStoreUnavailable(error, EVENT_STORE) || isStoreUnavailable(error, READ_MODELS);

/**
 * Moves one projection through the log, a batch of whole commits at a time, from a checkpoint. A batch
 * that fails is retried commit by commit, so one bad commit cannot hold back the others in its batch. A
 * commit that keeps failing for a reason other than an unreachable store is parked whole after bounded
 * retries (none of its events applied): recorded with the checkpoint past it, logged with its position
 * and counted, so every other account keeps moving. An unreachable store is never a reason to park: the runner waits for it, retrying with back-off.
 */
export class ProjectionRunner {
  private readonly batches: BatchProjection;
  private isolateUntil: bigint | null = null;
  /** Failures since the last success or parking: the count /health and a fill go by. */
  private readonly streak = new FailureStreak();
  /** Failures since the last success that were not outages: only these lead to parking. */
  private faults = 0;
  private parkedInARow = 0;
  private failing: StepFailure | null = null;

  constructor(
    private readonly events: EventStore,
    reads: ProjectionTarget,
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
   * stores it as one batch: one read-model transaction with the checkpoint at its end. A batch always
   * ends at the end of a commit (one request's events), so no reader ever sees part of a request: once
   * full, it reads on to the end of the commit it is in. `onPage` hears of every page folded into the
   * batch (events so far, last position), before anything is stored.
   */
  async step(upTo: bigint | null = null, onPage?: (events: number, position: bigint) => void): Promise<StepResult> {
    if (this.isolateUntil !== null && this.position !== null && this.position >= this.isolateUntil) this.isolateUntil = null;
    const isolating = this.isolateUntil !== null;
    const pageSize = Math.min(this.policy.pageSize ?? this.policy.batchSize, this.policy.batchSize);
    const pending = new PendingBatch();
    // The batch's first commit: what is parked, whole, if it alone keeps failing.
    const unit: RecordedEvent[] = [];
    let unitWhole = false;
    // Once set, the batch ends at the next end of a commit: when isolating a commit, or when full.
    let closing = isolating;
    let scannedTo: bigint | undefined;
    for (;;) {
      let page: ReadAllPage;
      try {
        page = await this.events.readAll({ after: pending.last ?? this.position, limit: pageSize });
      } catch (error) {
        return this.failed('read', error, this.position);
      }
      const more = page.length >= pageSize;
      scannedTo = page.scannedTo;
      if (upTo !== null) page = page.filter((e) => e.position <= upTo);
      if (closing) page = page.slice(0, throughFirstCommitEnd(page));
      if (page.length === 0) break;
      if (!unitWhole) {
        const end = throughFirstCommitEnd(page);
        unit.push(...page.slice(0, end));
        unitWhole = end < page.length || endsCommit(page[end - 1]!);
      }
      try {
        await this.batches.fold(pending, page);
      } catch (error) {
        return this.applyFailed(error, unit, unitWhole, page.at(-1)!.position);
      }
      onPage?.(pending.events, pending.last!);
      const full = pending.events >= this.policy.batchSize || pending.changed >= (this.policy.maxViews ?? Infinity);
      closing ||= full;
      const last = page.at(-1)!;
      if (!more || last.position === upTo || (closing && endsCommit(last))) break;
    }
    if (unit.length === 0) return this.skipScanned(scannedTo, upTo);
    try {
      const batch = await this.batches.commit(pending, this.chunks(unit[0]!.position));
      this.position = batch.position;
      this.succeeded(batch.views);
      return { kind: 'applied', batch, parked: 0 };
    } catch (error) {
      return this.applyFailed(error, unit, unitWhole, pending.last!);
    }
  }

  /**
   * Nothing of ours followed the checkpoint, but the store looked further (other streams' events in a
   * shared log): the checkpoint moves there, so neither this nor a restarted projector reads them again.
   */
  private async skipScanned(scannedTo: bigint | undefined, upTo: bigint | null): Promise<StepResult> {
    const to = scannedTo === undefined || upTo === null || scannedTo <= upTo ? scannedTo : upTo;
    if (to === undefined || to <= (this.position ?? -1n)) return { kind: 'idle' };
    try {
      await this.batches.skipTo(to);
    } catch (error) {
      return this.failed('apply', error, this.position);
    }
    this.position = to;
    return { kind: 'idle' };
  }

  private chunks(first: bigint): StoreInChunks | undefined {
    const { viewsPerTransaction: views, pauseBetweenTransactionsMs: ms = 0 } = this.policy;
    if (views === undefined) return undefined;
    return { views, resumeFrom: this.position ?? first - 1n, pause: () => delay(ms) };
  }

  /** A batch of several commits is tried again commit by commit; a single commit is retried, then parked whole. */
  private async applyFailed(error: unknown, unit: RecordedEvent[], unitWhole: boolean, last: bigint): Promise<StepResult> {
    const first = unit[0]!;
    if (unitWhole && last > unit.at(-1)!.position) {
      this.isolateUntil = last;
      this.observer.stepFailed('apply');
      this.logger.warn(
        { err: error, from: first.position.toString(), to: this.isolateUntil.toString() },
        'a projection batch failed; retrying its commits one by one',
      );
      return { kind: 'failed', retryInMs: 0 };
    }
    if (this.faults + 1 >= this.policy.attemptsBeforeParking && !isUnavailable(error) && this.parkedInARow < this.policy.parkedInARowLimit) {
      // Folding failed before the commit was read whole: the rest of it is parked with it.
      if (!unitWhole && !(await readRestOfCommit(this.events, unit, this.policy.pageSize ?? this.policy.batchSize)))
        return this.failed('read', error, first.position);
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
    const { streamName: stream, type } = unit[0]!;
    this.logger.error(
      {
        err: error,
        position: unit[0]!.position.toString(),
        through: position.toString(),
        events: unit.length,
        stream,
        type,
        attempts: this.streak.failures + 1,
      },
      'projection gave up on a commit and parked it whole; the read models skip all of its events (see `projections parked`)',
    );
    this.observer.eventsParked(parked.length);
    this.position = position;
    this.streak.succeeded();
    this.faults = 0;
    this.failing = null;
    this.parkedInARow += 1;
    return { kind: 'applied', batch: { position, events: 0, views: 0 }, parked: parked.length };
  }

  private succeeded(viewsStored: number): void {
    if (this.failing) this.logger.info({ position: this.position?.toString() ?? null, failures: this.streak.failures }, 'projection moves again');
    this.streak.succeeded();
    this.faults = 0;
    this.failing = null;
    // Only a stored view shows that the store and the code work; skipped events prove nothing.
    if (viewsStored > 0) this.parkedInARow = 0;
  }

  private failed(stage: StepFailure['stage'], error: unknown, position: bigint | null): StepResult {
    const log = this.streak.failed();
    const failures = this.streak.failures;
    // A commit is parked only after it failed on a store that answered; an outage says nothing about it.
    if (!isUnavailable(error)) this.faults += 1;
    this.observer.stepFailed(stage);
    this.failing = {
      stage,
      position: position?.toString() ?? null,
      error: describe(error),
      failures,
      since: this.failing?.since ?? new Date().toISOString(),
    };
    if (log) {
      const stuck = this.parkedInARow >= this.policy.parkedInARowLimit ? `; ${this.parkedInARow} commits parked in a row, so no more are parked` : '';
      const fields = { stage, position: position?.toString() ?? null, failures };
      if (failures === 1) this.logger.error({ ...fields, err: error }, `projection step failed; retrying${stuck}`);
      else this.logger.error({ ...fields, error: describe(error) }, `projection step still failing; retrying${stuck}`);
    }
    return { kind: 'failed', retryInMs: this.policy.retryDelayMs(failures) };
  }
}
