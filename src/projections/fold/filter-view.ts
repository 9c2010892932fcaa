import type { FilterAction, FilterContext, FilterEvent, Keyword } from '../../events/filter-events.ts';

/** The v2 read model: one document per filter, keywords and statuses inside. */
export interface FilterView {
  readonly id: string;
  readonly accountId: string;
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly filterAction: FilterAction;
  readonly expiresAt: string | null;
  readonly keywords: readonly Keyword[];
  readonly statuses: readonly { readonly id: string; readonly statusId: string }[];
  /** Stream revision of the last event folded in: replays of older events are recognised and skipped. */
  readonly revision: number;
  /** Kept as a tombstone so that replaying the log cannot bring a deleted filter back. */
  readonly deleted: boolean;
}

/** The v1 read model: one record per keyword, carrying its filter's settings. */
export interface V1FilterRecord {
  readonly id: string;
  readonly accountId: string;
  readonly filterId: string;
  readonly phrase: string;
  readonly context: readonly FilterContext[];
  readonly wholeWord: boolean;
  readonly expiresAt: string | null;
  readonly irreversible: boolean;
}

/**
 * Pure read-model fold. Never throws: an event that does not fit is ignored (the revision still moves),
 * and so is an event type it does not know.
 */
export function projectFilter(view: FilterView | null, event: FilterEvent, revision: number): FilterView | null {
  if (view && revision <= view.revision) return view;
  if (event.type === 'FilterCreated') {
    if (view) return { ...view, revision };
    const { filterId, accountId, title, context, action, expiresAt } = event.data;
    return { id: filterId, accountId, title, context, filterAction: action, expiresAt, keywords: [], statuses: [], revision, deleted: false };
  }
  if (!view) return null;
  switch (event.type) {
    case 'FilterUpdated': {
      const { title, context, action, expiresAt } = event.data;
      return { ...view, title, context, filterAction: action, expiresAt, revision };
    }
    case 'KeywordsUpdated':
      return { ...view, keywords: event.data.keywords, revision };
    case 'StatusFiltered': {
      const status = { id: event.data.filterStatusId, statusId: event.data.statusId };
      const statuses = view.statuses.some((s) => s.id === status.id) ? view.statuses : [...view.statuses, status];
      return { ...view, statuses, revision };
    }
    case 'StatusUnfiltered':
      return { ...view, statuses: view.statuses.filter((s) => s.id !== event.data.filterStatusId), revision };
    case 'FilterDeleted':
      return { ...view, keywords: [], statuses: [], deleted: true, revision };
    default:
      return ignored(event, view);
  }
}

/** Keeps the switch above exhaustive for the compiler while an unknown event changes nothing at run time. */
function ignored(_event: never, view: FilterView): FilterView {
  return view;
}

/** The v1 records a filter contributes; none once it is deleted. */
export function v1RecordsOf(view: FilterView): V1FilterRecord[] {
  if (view.deleted) return [];
  return view.keywords.map((k) => ({
    id: k.id,
    accountId: view.accountId,
    filterId: view.id,
    phrase: k.keyword,
    context: view.context,
    wholeWord: k.wholeWord,
    expiresAt: view.expiresAt,
    irreversible: view.filterAction === 'hide',
  }));
}
