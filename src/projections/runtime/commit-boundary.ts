import type { EventStore, RecordedEvent } from '../../events/event-store.ts';
import type { EventMetadata } from '../../events/filter-events.ts';

/**
 * True when `event` is the last event of the commit (one request's appends) it belongs to. An event
 * without commit metadata (written before it existed, or by hand) is a commit of its own.
 */
export function endsCommit(event: Pick<RecordedEvent, 'metadata'>): boolean {
  const m = event.metadata as Partial<EventMetadata> | null;
  return typeof m?.commitIndex !== 'number' || m.commitIndex >= (m.commitSize ?? 1) - 1;
}

/** How many of `page`'s first events make up whole commits up to the first commit's end (all of it when none ends there). */
export function throughFirstCommitEnd(page: readonly RecordedEvent[]): number {
  const end = page.findIndex(endsCommit);
  return end < 0 ? page.length : end + 1;
}

/** Appends to `unit` (a commit's first events) the rest of its commit, read from the log; false when the log cannot be read. */
export async function readRestOfCommit(events: EventStore, unit: RecordedEvent[], pageSize: number): Promise<boolean> {
  for (;;) {
    let page: readonly RecordedEvent[];
    try {
      page = await events.readAll({ after: unit.at(-1)!.position, limit: pageSize });
    } catch {
      return false;
    }
    const end = throughFirstCommitEnd(page);
    unit.push(...page.slice(0, end));
    if (page.length === 0 || end < page.length || endsCommit(page[end - 1]!)) return true;
  }
}
