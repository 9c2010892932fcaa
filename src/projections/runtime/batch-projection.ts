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

const endsCommit = (metadata: unknown): boolean => {
  const m = metadata as Partial<EventMetadata> | null;
  return typeof m?.commitIndex !== 'number' || m.commitIndex === (m.commitSize ?? 1) - 1;
};

/**
 * The one way events reach a read model, for the live projector and for rebuilds alike: folds a batch of
 * events into the views they touch (loaded in one call, or kept from the previous batch) and stores the
 * changed views, any parked events and the checkpoint as one batch. Announcements are only returned, for
 * the caller to send once the batch has committed.
 */
export class BatchProjection {
  private readonly cache = new ViewCache();

  constructor(
    private readonly reads: ReadStore,
    private readonly projection: string,
    private readonly logger: Logger,
  ) {}

  async apply(events: readonly RecordedEvent[], parked: readonly ParkedEvent[] = []): Promise<AppliedBatch> {
    const last = events.at(-1);
    if (!last) throw new RangeError('an empty batch');
    const working = await this.viewsFor(events);
    const changed = new Map<string, FilterView>();
    const announcements: string[] = [];
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
    await this.reads.applyBatch({ projection: this.projection, position: last.position, views: [...changed.values()], parked });
    for (const view of changed.values()) this.cache.remember(view);
    return { position: last.position, announcements, events: events.length, views: changed.size };
  }

  /** Stores only parked events and moves the checkpoint past them. */
  async park(parked: readonly ParkedEvent[]): Promise<void> {
    const last = parked.at(-1);
    if (!last) return;
    await this.reads.applyBatch({ projection: this.projection, position: last.position, views: [], parked });
  }

  private async viewsFor(events: readonly RecordedEvent[]): Promise<Map<string, FilterView>> {
    const views = new Map<string, FilterView>();
    const missing = new Set<string>();
    for (const recorded of events) {
      const filterId = filterIdOfStream(recorded.streamName);
      if (filterId === null || views.has(filterId) || missing.has(filterId)) continue;
      const cached = this.cache.get(filterId);
      if (cached) views.set(filterId, cached);
      else missing.add(filterId);
    }
    if (missing.size > 0) for (const [id, view] of await this.reads.loadFilters([...missing])) views.set(id, view);
    return views;
  }
}
