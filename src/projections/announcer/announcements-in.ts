import type { RecordedEvent } from '../../events/event-store.ts';
import { readFilterEvent } from '../../events/filter-event-versions.ts';
import { filterIdOfStream, type EventMetadata } from '../../events/filter-events.ts';
import type { Announcement } from '../../notifications/notifier.ts';
import { endsCommit } from '../runtime/commit-boundary.ts';

/** What a page ending inside a commit passes on to the next: whether an event of that commit was parked. */
export interface CommitCarry {
  parked: boolean;
}

/** The message id of the commit that `event` ends: the same on every re-publish, unique across commits. */
export const announcementId = (event: RecordedEvent): string => `filters_changed-${event.eventId}`;

/**
 * The announcements a page of the log asks for: one per commit of filter events (a request that changed
 * an account's filters), at its last event, in log order. A refused or no-op request appended nothing,
 * so it announces nothing. The message id is the commit's last event id: every re-publish of the same
 * commit carries the same one, so JetStream drops the copies. `skipped` are positions the projection
 * parked (any event of a commit): the read models do not show them, so they are not announced.
 */
export function announcementsIn(
  events: readonly RecordedEvent[],
  skipped: ReadonlySet<bigint> = new Set(),
  carry: CommitCarry = { parked: false },
): Announcement[] {
  const announcements: Announcement[] = [];
  let parkedInCommit = carry.parked;
  for (const event of events) {
    if (filterIdOfStream(event.streamName) === null) continue;
    const metadata = event.metadata as Partial<EventMetadata> | null;
    parkedInCommit ||= skipped.has(event.position);
    if (!endsCommit(event)) continue;
    const parked = parkedInCommit;
    parkedInCommit = false;
    if (parked || typeof metadata?.accountId !== 'string') continue;
    // A type or version this release cannot read changed nothing the read models show.
    if (readFilterEvent(event) === null) continue;
    announcements.push({ accountId: metadata.accountId, messageId: announcementId(event), position: event.position });
  }
  carry.parked = parkedInCommit;
  return announcements;
}
