import type { RecordedEvent } from '../../events/event-store.ts';
import { readFilterEvent } from '../../events/filter-event-versions.ts';
import { filterIdOfStream } from '../../events/filter-events.ts';
import type { Logger } from '../../shared/logger.ts';
import { projectFilter, type FilterView } from '../fold/filter-view.ts';
import type { ParkedEvent, ProjectionTarget } from '../stores/read-store.ts';
import { ViewCache, type ViewCacheBounds } from './view-cache.ts';

/** What one stored batch did. */
export interface AppliedBatch {
  /** The checkpoint now stored: the position of the batch's last event. */
  readonly position: bigint;
  readonly events: number;
  /** Views stored (changed filters). */
  readonly views: number;
}

/** One filter in a batch: its view as stored before the batch (null: not stored), and after the events folded so far. */
interface Slot {
  readonly filterId: string;
  previous: FilterView | null;
  view: FilterView | null;
  changed: boolean;
  /** `recordedAt` of the event that made the view (when the batch made it) and of its last change. */
  createdAt?: string;
  updatedAt?: string;
}

/** How a batch that nobody reads yet is stored in several short transactions. */
export interface StoreInChunks {
  /** Views per transaction, at most. */
  readonly views: number;
  /** The checkpoint every transaction but the last stores: a position before the batch's first event. */
  readonly resumeFrom: bigint;
  /** Runs between two transactions: lets others take the write lock. */
  readonly pause: () => Promise<void>;
}

/** Events folded but not stored yet: one read-model transaction in the making, over one or more pages of the log. */
export class PendingBatch {
  /**
   * Every filter the batch has seen, by stream name: one look-up per event finds its views, with the
   * name as read (a filter id cut out of it is a new string whose every look-up costs more).
   */
  readonly slots = new Map<string, Slot>();
  /** How many of them the batch changed: what it has to store. */
  changed = 0;
  events = 0;
  last: bigint | null = null;
}

/** An event whose stored bytes could not be decoded: it cannot be folded, so it is parked. */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';

  constructor(event: RecordedEvent) {
    super(`event ${event.eventId} (${event.type}) in ${event.streamName} cannot be decoded: ${event.undecodable}`);
  }
}

/**
 * The one way events reach a read model, for the live projector and for rebuilds alike: folds pages of
 * events into the views they touch (loaded in one call, or kept from earlier pages and batches) and
 * stores the changed views and the checkpoint as one batch. A filter changed many times in a batch is
 * stored once. It announces nothing: the announcers read the log themselves (announcer/announcer.ts).
 */
export class BatchProjection {
  private readonly cache: ViewCache;

  constructor(
    private readonly reads: ProjectionTarget,
    private readonly projection: string,
    private readonly logger: Logger,
    cacheBounds?: ViewCacheBounds,
    /** The read model held nothing of this projection when it started (no checkpoint), so the cache starts complete. */
    fromStart = false,
  ) {
    this.cache = new ViewCache(cacheBounds, fromStart);
  }

  /** Folds the next page of the log into `pending`; nothing is stored. */
  async fold(pending: PendingBatch, events: readonly RecordedEvent[]): Promise<void> {
    const slots = await this.load(pending, events);
    for (let i = 0; i < events.length; i += 1) {
      const slot = slots[i] ?? null;
      const recorded = events[i]!;
      if (slot !== null && recorded.undecodable !== undefined) throw new UndecodableEventError(recorded);
      const event = slot === null ? null : readFilterEvent(recorded);
      if (slot === null || event === null) continue;
      const before = slot.view;
      const after = projectFilter(before, event, Number(recorded.revision));
      if (!after) {
        this.logger.warn(
          { stream: recorded.streamName, type: recorded.type, position: recorded.position.toString() },
          'event for a filter the read model does not know; skipped',
        );
        continue;
      }
      if (after !== before) {
        if (before === null) slot.createdAt = recorded.recordedAt;
        slot.updatedAt = recorded.recordedAt;
        slot.view = after;
        if (!slot.changed) pending.changed += 1;
        slot.changed = true;
      }
    }
    pending.events += events.length;
    pending.last = events.at(-1)?.position ?? pending.last;
  }

  /**
   * Stores the folded views and the checkpoint (the last folded position) as one transaction, or, given
   * `chunks`, as several transactions of at most `chunks.views` views, pausing between them. Only a
   * generation nobody reads yet may be stored in chunks: every chunk but the last keeps the checkpoint
   * at `chunks.resumeFrom` (before the batch), so a crash midway replays the batch, and the fold skips
   * what is already stored.
   */
  async commit(pending: PendingBatch, chunks?: StoreInChunks): Promise<AppliedBatch> {
    const position = pending.last;
    if (position === null) throw new RangeError('an empty batch');
    const views: FilterView[] = [];
    const previous = new Map<string, FilterView | null>();
    const changedAt = new Map<string, { createdAt: string; updatedAt: string }>();
    for (const slot of pending.slots.values()) {
      if (!slot.changed || slot.view === null) continue;
      views.push(slot.view);
      previous.set(slot.filterId, slot.previous);
      if (slot.updatedAt !== undefined) changedAt.set(slot.filterId, { createdAt: slot.createdAt ?? slot.updatedAt, updatedAt: slot.updatedAt });
    }
    const size = chunks ? Math.max(1, chunks.views) : Infinity;
    let from = 0;
    for (; from + size < views.length; from += size) {
      const chunk = views.slice(from, from + size);
      await this.reads.applyBatch({ projection: this.projection, position: chunks!.resumeFrom, views: chunk, previous, changedAt });
      for (const view of chunk) this.cache.remember(view);
      await chunks!.pause();
    }
    const last = from === 0 ? views : views.slice(from);
    await this.reads.applyBatch({ projection: this.projection, position, views: last, previous, changedAt });
    for (const view of last) this.cache.remember(view);
    return { position, events: pending.events, views: views.length };
  }

  /** Moves the checkpoint over a stretch of the log that holds none of this projection's events. */
  async skipTo(position: bigint): Promise<void> {
    await this.reads.applyBatch({ projection: this.projection, position, views: [], parked: [] });
  }

  /** Stores only parked events and moves the checkpoint past them. */
  async park(parked: readonly ParkedEvent[]): Promise<void> {
    const last = parked.at(-1);
    if (!last) return;
    await this.reads.applyBatch({ projection: this.projection, position: last.position, views: [], parked });
  }

  /**
   * The slot of each event's filter (null: not a filter's event), bringing the views the batch has not
   * seen yet into it: kept from an earlier batch, known not to be stored, or read in one call.
   */
  private async load(pending: PendingBatch, events: readonly RecordedEvent[]): Promise<(Slot | null)[]> {
    const slots: (Slot | null)[] = [];
    const missing: Slot[] = [];
    for (const { streamName } of events) {
      let slot = pending.slots.get(streamName) ?? null;
      const filterId = slot === null ? filterIdOfStream(streamName) : null;
      if (filterId !== null) {
        const cached = this.cache.get(filterId) ?? null;
        slot = { filterId, previous: cached, view: cached, changed: false };
        pending.slots.set(streamName, slot);
        if (!cached && !this.cache.complete) missing.push(slot);
      }
      slots.push(slot);
    }
    if (missing.length === 0) return slots;
    const found = await this.reads.loadFilters(missing.map((slot) => slot.filterId));
    for (const slot of missing) {
      slot.previous = found.get(slot.filterId) ?? null;
      slot.view = slot.previous;
    }
    return slots;
  }
}
