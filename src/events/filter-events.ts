/**
 * The facts of a filter's life, stored in the stream `filter-<id>`. The type string is the stored event
 * type. Times are ISO-8601 strings so events round-trip through JSON unchanged.
 */
export type FilterAction = 'warn' | 'hide' | 'blur';
export type FilterContext = 'home' | 'notifications' | 'public' | 'thread' | 'account';

export interface Keyword {
  readonly id: string;
  readonly keyword: string;
  readonly wholeWord: boolean;
}

export interface FilterSettings {
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly action: FilterAction;
  readonly expiresAt: string | null;
}

export type FilterCreated = {
  readonly type: 'FilterCreated';
  readonly data: FilterSettings & { readonly filterId: string; readonly accountId: string; readonly createdAt: string };
};

/** Carries every filter-level setting as it is after the change. */
export type FilterUpdated = {
  readonly type: 'FilterUpdated';
  readonly data: FilterSettings & { readonly filterId: string; readonly updatedAt: string };
};

/**
 * Carries the change, not the list (schema version 2): the ids removed, the keywords changed (as they are
 * after the change) and the keywords added, applied in that order; kept keywords keep their order and
 * added ones go last. So an event is as large as the request that caused it, however many keywords the
 * filter holds. `replacesAll` is true only for a version-1 event read through its upcaster: it carried
 * the whole list, which `added` then holds, and every keyword not in it is gone.
 */
export type KeywordsUpdated = {
  readonly type: 'KeywordsUpdated';
  readonly data: {
    readonly filterId: string;
    readonly removed: readonly string[];
    readonly changed: readonly Keyword[];
    readonly added: readonly Keyword[];
    readonly replacesAll: boolean;
    readonly updatedAt: string;
  };
};

const listOr = <T>(value: readonly T[] | undefined): readonly T[] => (Array.isArray(value) ? (value as readonly T[]) : []);

/**
 * A filter's keywords after a KeywordsUpdated, shared by every fold (command state, views). Total, as a
 * fold must be: a list missing from a stored event counts as empty.
 */
export function keywordsAfter(keywords: readonly Keyword[], change: KeywordsUpdated['data']): readonly Keyword[] {
  const [removedIds, changedKeywords, added] = [listOr(change.removed), listOr(change.changed), listOr(change.added)];
  if (change.replacesAll === true) return added;
  if (removedIds.length === 0 && changedKeywords.length === 0) return added.length === 0 ? keywords : [...keywords, ...added];
  const removed = new Set(removedIds);
  const changed = new Map(changedKeywords.map((k) => [k.id, k]));
  const kept: Keyword[] = [];
  for (const keyword of keywords) if (!removed.has(keyword.id)) kept.push(changed.get(keyword.id) ?? keyword);
  return added.length === 0 ? kept : [...kept, ...added];
}

export type StatusFiltered = {
  readonly type: 'StatusFiltered';
  readonly data: { readonly filterId: string; readonly filterStatusId: string; readonly statusId: string; readonly filteredAt: string };
};

export type StatusUnfiltered = {
  readonly type: 'StatusUnfiltered';
  readonly data: { readonly filterId: string; readonly filterStatusId: string; readonly statusId: string; readonly unfilteredAt: string };
};

export type FilterDeleted = {
  readonly type: 'FilterDeleted';
  readonly data: { readonly filterId: string; readonly deletedAt: string };
};

export type FilterEvent = FilterCreated | FilterUpdated | KeywordsUpdated | StatusFiltered | StatusUnfiltered | FilterDeleted;
export type FilterEventType = FilterEvent['type'];

export const FILTER_EVENT_TYPES: readonly FilterEventType[] = [
  'FilterCreated',
  'FilterUpdated',
  'KeywordsUpdated',
  'StatusFiltered',
  'StatusUnfiltered',
  'FilterDeleted',
];

/** What an auditor needs to know about who caused an event; set by the handler, never by the decider. */
export interface EventMetadata {
  readonly accountId: string;
  readonly requestId: string;
  readonly apiVersion: 'v1' | 'v2' | 'cli';
  /** The id of the access token used, never the token itself. */
  readonly tokenId: string | null;
  /** Events appended together share a commit; the projector announces a change once per commit. */
  readonly commitIndex: number;
  readonly commitSize: number;
  /** The version of this event type's data schema it was written in (filter-event-versions.ts). */
  readonly schemaVersion: number;
  /**
   * Set only on events `mastodon import` wrote: the facts were not a request's but rows Mastodon held
   * before the switch. Optional, so events written before it (and every other event) read unchanged;
   * it is metadata, not data, so no event type's schema version moves (docs/architecture.md, Events).
   */
  readonly imported?: ImportedFrom;
}

/** The rows of Mastodon's tables an imported event stands for, with the times Mastodon gave them. */
export interface ImportedFrom {
  readonly source: 'mastodon';
  /** When the import ran (the event's own times are Mastodon's). */
  readonly importedAt: string;
  readonly rows: readonly ImportedRow[];
}

export interface ImportedRow {
  readonly table: 'custom_filters' | 'custom_filter_keywords' | 'custom_filter_statuses';
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const FILTER_CATEGORY = 'filter';

export function filterStream(filterId: string): string {
  return `${FILTER_CATEGORY}-${filterId}`;
}

export function filterIdOfStream(streamName: string): string | null {
  return streamName.startsWith(`${FILTER_CATEGORY}-`) ? streamName.slice(FILTER_CATEGORY.length + 1) : null;
}
