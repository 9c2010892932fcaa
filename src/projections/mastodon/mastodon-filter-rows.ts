import type { FilterAction } from '../../events/filter-events.ts';
import type { FilterView } from '../fold/filter-view.ts';

/** The checkpoint's name in Mastodon's database: where the log stands in its filter tables. */
export const MASTODON_PROJECTION = 'mastodon-filters';

/** A row of Mastodon's `custom_filters` (db/schema.rb), its timestamps aside. */
export interface CustomFilterRow {
  readonly id: string;
  readonly account_id: string;
  readonly phrase: string;
  readonly context: readonly string[];
  readonly action: number;
  /** ISO 8601 in UTC with milliseconds, as read back with to_char: the column is `timestamp` holding UTC. */
  readonly expires_at: string | null;
}

export interface CustomFilterKeywordRow {
  readonly id: string;
  readonly custom_filter_id: string;
  readonly keyword: string;
  readonly whole_word: boolean;
}

export interface CustomFilterStatusRow {
  readonly id: string;
  readonly custom_filter_id: string;
  readonly status_id: string;
}

/** What one filter is in Mastodon's three tables: nothing at all once it is deleted. */
export interface MastodonFilterRows {
  readonly filter: CustomFilterRow | null;
  readonly keywords: readonly CustomFilterKeywordRow[];
  readonly statuses: readonly CustomFilterStatusRow[];
}

/**
 * CustomFilter's `enum :action, { warn: 0, hide: 1 }` (app/models/custom_filter.rb); Mastodon 4.4 added
 * `blur: 2` to the same enum, which this service's v2 API accepts too.
 */
const ACTIONS: Readonly<Record<FilterAction, number>> = { warn: 0, hide: 1, blur: 2 };

/** An instant as PostgreSQL's to_char prints it back (milliseconds, `Z`), so both sides compare as text. */
export const utcInstant = (value: string | null): string | null => (value === null ? null : new Date(value).toISOString());

/**
 * The rows a filter's v2 view stands for in Mastodon's tables, with the very ids the API answers: the
 * filter's, each keyword's (which v1 answers as its filter ids) and each filter-status's. Pure: the
 * projector writes these, and the drift check compares what Mastodon holds with these.
 */
export function mastodonRowsOf(view: FilterView): MastodonFilterRows {
  if (view.deleted) return { filter: null, keywords: [], statuses: [] };
  return {
    filter: {
      id: view.id,
      account_id: view.accountId,
      phrase: view.title,
      context: [...view.context],
      action: ACTIONS[view.filterAction] ?? 0,
      expires_at: utcInstant(view.expiresAt),
    },
    keywords: view.keywords.map((k) => ({ id: k.id, custom_filter_id: view.id, keyword: k.keyword, whole_word: k.wholeWord })),
    statuses: view.statuses.map((s) => ({ id: s.id, custom_filter_id: view.id, status_id: s.statusId })),
  };
}

/** The action a row's integer stands for (an integer Mastodon adds later reads as `warn`). */
export function actionOfRow(action: number): FilterAction {
  return (Object.keys(ACTIONS) as FilterAction[]).find((name) => ACTIONS[name] === action) ?? 'warn';
}
