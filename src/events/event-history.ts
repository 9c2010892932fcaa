import { accountIdOfEventsStream } from '../accounts/account-events.ts';
import { hasAccountStreams } from './account-streams.ts';
import { USAGE_CATEGORY } from './account-usage-events.ts';
import type { EventStore, RecordedEvent } from './event-store.ts';
import { filterIdOfStream, filterStream } from './filter-events.ts';
import { isAtOrBefore, isSince, type LogPoint } from './log-point.ts';

const PAGE_SIZE = 1000;

const isUsageLedger = (streamName: string): boolean => streamName.startsWith(`${USAGE_CATEGORY}-`);

export interface HistoryQuery {
  readonly accountId?: string;
  readonly filterId?: string;
  readonly since?: LogPoint;
  /** Inclusive: events up to and including this position, or recorded at or before this time. */
  readonly until?: LogPoint;
  /** Only events of these types (any, when absent). */
  readonly types?: ReadonlySet<string>;
}

/** Every event of the global log in position order, a page at a time. */
export async function* readWholeLog(events: EventStore, from: bigint | null = null): AsyncGenerator<RecordedEvent> {
  let after = from;
  for (;;) {
    const page = await events.readAll({ after, limit: PAGE_SIZE });
    yield* page;
    if (page.length < PAGE_SIZE) return;
    after = page.at(-1)!.position;
  }
}

/** The account that owns a filter stream is named by its FilterCreated event. */
function ownerOf(event: RecordedEvent): string | null {
  if (event.type !== 'FilterCreated') return null;
  const accountId = (event.data as { accountId?: unknown }).accountId;
  return typeof accountId === 'string' ? accountId : null;
}

/** An account's events: those of the filter streams it owns and of its own stream (account-events.ts). */
function belongsTo(streamName: string, accountId: string, owners: ReadonlyMap<string, string>): boolean {
  const own = accountIdOfEventsStream(streamName);
  if (own !== null) return own === accountId;
  return filterIdOfStream(streamName) !== null && owners.get(streamName) === accountId;
}

/** Where the events come from: one filter's stream, the account's streams (by index), or the whole log. */
async function sourceOf(events: EventStore, query: HistoryQuery): Promise<AsyncIterable<RecordedEvent> | Iterable<RecordedEvent>> {
  if (query.filterId !== undefined) return events.readStream(filterStream(query.filterId));
  if (query.accountId !== undefined && hasAccountStreams(events)) return events.readAccountEvents(query.accountId);
  // The whole log after a position starts there, unless an account's streams must first be learnt.
  const after = query.accountId === undefined && query.since && 'position' in query.since ? query.since.position : null;
  return readWholeLog(events, after);
}

/**
 * The event history an auditor asked for. One filter is read from its own stream; an account's events
 * (its filters' and its own account facts, in log order) from its streams where the store indexes them
 * by account, else from the whole log (from the start, even with `since`), since its filter streams are
 * known only by their FilterCreated events.
 */
export async function* eventHistory(events: EventStore, query: HistoryQuery): AsyncGenerator<RecordedEvent> {
  const source = await sourceOf(events, query);
  const owners = new Map<string, string>();
  for await (const event of source) {
    // Every source is in position order: nothing after a position limit can be wanted. Times are not
    // ordered by position (writers' clocks differ), so a time limit reads on.
    if (query.until && 'position' in query.until && event.position > query.until.position) return;
    const owner = ownerOf(event);
    if (owner !== null) owners.set(event.streamName, owner);
    if (query.accountId !== undefined && !belongsTo(event.streamName, query.accountId, owners)) continue;
    if (query.until && !isAtOrBefore(event, query.until)) continue;
    if (query.since && !isSince(event, query.since)) continue;
    if (query.types && !query.types.has(event.type)) continue;
    // The limits' bookkeeping, derived from the filters' own events: shown only when asked for by type.
    if (!query.types && isUsageLedger(event.streamName)) continue;
    yield event;
  }
}

/** One NDJSON line: positions can pass 2^53 on EventStoreDB, so they are strings. */
export function historyLine(event: RecordedEvent): string {
  return JSON.stringify({
    type: event.type,
    stream: event.streamName,
    revision: Number(event.revision),
    position: event.position.toString(),
    time: event.recordedAt,
    data: event.data,
    metadata: event.metadata,
  });
}
