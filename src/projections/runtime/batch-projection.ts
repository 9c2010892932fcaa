import type { RecordedEvent } from '../../events/event-store.ts';
import { readFilterEvent } from '../../events/filter-event-versions.ts';
import { filterIdOfStream, type EventMetadata } from '../../events/filter-events.ts';
import type { Logger } from '../../shared/logger.ts';
import { projectFilter, type FilterView } from '../fold/filter-view.ts';
import type { ParkedEvent, ReadStore } from '../stores/read-store.ts';
import { ViewCache } from './view-cache.ts';

/** What one stored batch asks of the caller once it has committed. */
export interface AppliedBatch {
  /** The checkpoint now stored: the position of the batch's last event. */
  readonly position: bigint;
  /** One account id per commit that ended in this batch and touched a filter, in log order. */
  readonly announcements: readonly string[];
  readonly events: number;
  /** Views stored (changed filters). */
  readonly views: number;
}

/** Events folded but not stored yet: one read-model transaction in the making, over one or more pages of the log. */
export class PendingBatch {
  /** Every view the batch has seen, as it stands after the events folded so far. */
  readonly working = new Map<string, FilterView>();
  readonly changed = new Map<string, FilterView>();
  /** Each seen view as it was before the batch (null: not stored), for the store to write only what changed. */
  readonly previous = new Map<string, FilterView | null>();
  readonly announcements: string[] = [];
  events = 0;
  last: bigint | null = null;
}

const endsCommit = (metadata: unknown): boolean => {
  const m = metadata as Partial<EventMetadata> | null;
  return typeof m?.commitIndex !== 'number' || m.commitIndex === (m.commitSize ?? 1) - 1;
};

/**
 * The one way events reach a read model, for the live projector and for rebuilds alike: folds pages of
 * events into the views they touch (loaded in one call, or kept from earlier pages and batches) and
 * stores the changed views, any parked events and the checkpoint as one batch. A filter changed many
 * times in a batch is stored once. Announcements are only returned, for the caller to send once the
 * batch has committed.
 */
export class BatchProjection {
  private readonly cache = new ViewCache();

  constructor(
    private readonly reads: ReadStore,
    private readonly projection: string,
    private readonly logger: Logger,
  ) {}

  /** Folds and stores `events` as one batch. */
  async apply(events: readonly RecordedEvent[], parked: readonly ParkedEvent[] = []): Promise<AppliedBatch> {
    const pending = new PendingBatch();
    await this.fold(pending, events);
    return this.commit(pending, parked);
  }

  /** Folds the next page of the log into `pending`; nothing is stored. */
  async fold(pending: PendingBatch, events: readonly RecordedEvent[]): Promise<void> {
    await this.load(pending, events);
    const { working, changed, announcements } = pending;
    for (const recorded of events) {
      const filterId = filterIdOfStream(recorded.streamName);
      const event = filterId === null ? null : readFilterEvent(recorded);
      if (filterId === null || event === null) continue;
      const before = working.get(filterId) ?? null;
      const after = projectFilter(before, event, Number(recorded.revision));
      if (!after) {
        this.logger.warn(
          { stream: recorded.streamName, type: recorded.type, position: recorded.position.toString() },
          'event for a filter the read model does not know; skipped',
        );
        continue;
      }
      if (after !== before) {
        working.set(filterId, after);
        changed.set(filterId, after);
      }
      if (endsCommit(recorded.metadata)) announcements.push(after.accountId);
    }
    pending.events += events.length;
    pending.last = events.at(-1)?.position ?? pending.last;
  }

  /** Stores the folded views and the checkpoint (the last folded position) as one transaction. */
  async commit(pending: PendingBatch, parked: readonly ParkedEvent[] = []): Promise<AppliedBatch> {
    const position = pending.last;
    if (position === null) throw new RangeError('an empty batch');
    const views = [...pending.changed.values()];
    await this.reads.applyBatch({ projection: this.projection, position, views, parked, previous: pending.previous });
    for (const view of views) this.cache.remember(view);
    return { position, announcements: pending.announcements, events: pending.events, views: views.length };
  }

  /** Stores only parked events and moves the checkpoint past them. */
  async park(parked: readonly ParkedEvent[]): Promise<void> {
    const last = parked.at(-1);
    if (!last) return;
    await this.reads.applyBatch({ projection: this.projection, position: last.position, views: [], parked });
  }

  /** Brings the views the events touch into the batch: kept from an earlier page or batch, or read in one call. */
  private async load(pending: PendingBatch, events: readonly RecordedEvent[]): Promise<void> {
    const missing = new Set<string>();
    for (const recorded of events) {
      const filterId = filterIdOfStream(recorded.streamName);
      if (filterId === null || pending.previous.has(filterId) || missing.has(filterId)) continue;
      const cached = this.cache.get(filterId);
      if (cached) this.see(pending, filterId, cached);
      else missing.add(filterId);
    }
    if (missing.size === 0) return;
    const found = await this.reads.loadFilters([...missing]);
    for (const filterId of missing) this.see(pending, filterId, found.get(filterId) ?? null);
  }

  private see(pending: PendingBatch, filterId: string, view: FilterView | null): void {
    pending.previous.set(filterId, view);
    if (view) pending.working.set(filterId, view);
  }
}
