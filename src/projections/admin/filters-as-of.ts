import { hasAccountStreams } from '../../events/account-streams.ts';
import type { EventStore } from '../../events/event-store.ts';
import { readWholeLog } from '../../events/event-history.ts';
import { readFilterEvent } from '../../events/filter-event-versions.ts';
import { filterIdOfStream } from '../../events/filter-events.ts';
import { isAtOrBefore, type LogPoint } from '../../events/log-point.ts';
import { projectFilter, type FilterView } from '../fold/filter-view.ts';

/**
 * Time travel: an account's v2 filters as they stood at `point`, folded from the log with the same pure
 * fold the projector uses, in the order the API lists them. Nothing is read from the read models. Where
 * the store indexes streams by account, only the account's streams are read.
 */
export async function filtersAsOf(events: EventStore, accountId: string, point: LogPoint): Promise<FilterView[]> {
  return (await replayFiltersAsOf(events, accountId, point)).views;
}

export interface FiltersReplay {
  readonly views: FilterView[];
  /** The position of the last event of the account's filters that the replay applied; null if none. */
  readonly position: bigint | null;
}

/** As filtersAsOf, also saying how far the replay went, so an auditor can tell "empty then" from "asked too early". */
export async function replayFiltersAsOf(events: EventStore, accountId: string, point: LogPoint): Promise<FiltersReplay> {
  const views = new Map<string, FilterView>();
  let position: bigint | null = null;
  const source = hasAccountStreams(events) ? await events.readAccountEvents(accountId) : readWholeLog(events);
  for await (const recorded of source) {
    // Positions grow along the log; times nearly so, so a time keeps scanning to the end.
    if ('position' in point && recorded.position > point.position) break;
    if (!isAtOrBefore(recorded, point)) continue;
    const filterId = filterIdOfStream(recorded.streamName);
    const event = filterId === null ? null : readFilterEvent(recorded);
    if (filterId === null || event === null) continue;
    const before = views.get(filterId) ?? null;
    if (before === null && event.type !== 'FilterCreated') continue;
    const after = projectFilter(before, event, Number(recorded.revision));
    if (after && after.accountId === accountId) {
      views.set(filterId, after);
      position = recorded.position;
    }
  }
  const listed = [...views.values()].filter((view) => !view.deleted).sort((a, b) => a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { views: listed, position };
}
