import type { ActiveFilter } from '../commands/filter/filter-state.ts';
import type { Keyword } from '../events/filter-events.ts';
import type { FilterView, V1FilterRecord } from '../projections/fold/filter-view.ts';

/** Mastodon's JSON shapes, field for field and in its order; every id is a string. */
type FilterShape = Pick<FilterView, 'id' | 'title' | 'context' | 'filterAction' | 'expiresAt' | 'keywords' | 'statuses'>;

export const keywordJson = (k: Keyword) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord });

export const statusJson = (s: { id: string; statusId: string }) => ({ id: s.id, status_id: s.statusId });

export const filterJson = (f: FilterShape) => ({
  id: f.id,
  title: f.title,
  context: f.context,
  expires_at: f.expiresAt,
  filter_action: f.filterAction,
  keywords: f.keywords.map(keywordJson),
  statuses: f.statuses.map(statusJson),
});

export const v1FilterJson = (r: Omit<V1FilterRecord, 'accountId' | 'filterId'>) => ({
  id: r.id,
  phrase: r.phrase,
  context: r.context,
  whole_word: r.wholeWord,
  expires_at: r.expiresAt,
  irreversible: r.irreversible,
});

export function filterShapeOf(state: ActiveFilter): FilterShape {
  const { title, context, action, expiresAt } = state.settings;
  return { id: state.filterId, title, context, filterAction: action, expiresAt, keywords: state.keywords, statuses: state.statuses };
}

export function v1RecordOf(state: ActiveFilter, keyword: Keyword) {
  const { context, action, expiresAt } = state.settings;
  return { id: keyword.id, phrase: keyword.keyword, context, wholeWord: keyword.wholeWord, expiresAt, irreversible: action === 'hide' };
}
