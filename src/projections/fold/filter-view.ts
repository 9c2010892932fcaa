import { keywordsAfter, type FilterAction, type FilterContext, type FilterEvent, type Keyword } from '../../events/filter-events.ts';

/** The v2 read model of one filter, keywords and statuses inside (stores may keep them apart). */
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

type Settings = Pick<FilterView, 'title' | 'context' | 'filterAction' | 'expiresAt'>;

/**
 * The view after an event: written out field by field, since a rebuild folds millions of events and
 * object spread with fields overridden costs about ten times as much. Fields an event leaves alone keep
 * their value (the same object), which the stores use to tell what changed.
 */
const next = (
  view: FilterView,
  revision: number,
  settings: Settings,
  keywords: FilterView['keywords'],
  statuses: FilterView['statuses'],
  deleted: boolean,
): FilterView => ({
  id: view.id,
  accountId: view.accountId,
  title: settings.title,
  context: settings.context,
  filterAction: settings.filterAction,
  expiresAt: settings.expiresAt,
  keywords,
  statuses,
  revision,
  deleted,
});

/**
 * Pure read-model fold. Never throws: an event that does not fit is ignored (the revision still moves),
 * and so is an event type it does not know.
 */
export function projectFilter(view: FilterView | null, event: FilterEvent, revision: number): FilterView | null {
  if (view && revision <= view.revision) return view;
  if (event.type === 'FilterCreated') {
    if (view) return next(view, revision, view, view.keywords, view.statuses, view.deleted);
    const { filterId, accountId, title, context, action, expiresAt } = event.data;
    return { id: filterId, accountId, title, context, filterAction: action, expiresAt, keywords: [], statuses: [], revision, deleted: false };
  }
  if (!view) return null;
  switch (event.type) {
    case 'FilterUpdated': {
      const { title, context, action, expiresAt } = event.data;
      return next(view, revision, { title, context, filterAction: action, expiresAt }, view.keywords, view.statuses, view.deleted);
    }
    case 'KeywordsUpdated':
      return next(view, revision, view, keywordsAfter(view.keywords, event.data), view.statuses, view.deleted);
    case 'StatusFiltered': {
      const status = { id: event.data.filterStatusId, statusId: event.data.statusId };
      const statuses = view.statuses.some((s) => s.id === status.id) ? view.statuses : [...view.statuses, status];
      return next(view, revision, view, view.keywords, statuses, view.deleted);
    }
    case 'StatusUnfiltered':
      return next(
        view,
        revision,
        view,
        view.keywords,
        view.statuses.filter((s) => s.id !== event.data.filterStatusId),
        view.deleted,
      );
    case 'FilterDeleted':
      return next(view, revision, view, [], [], true);
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
