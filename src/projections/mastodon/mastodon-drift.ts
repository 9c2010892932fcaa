import type { AccountRows } from './mastodon-account-rows.ts';
import { mastodonRowsOf } from './mastodon-filter-rows.ts';
import type { FilterView } from '../fold/filter-view.ts';

/** One place where Mastodon's filter tables hold something other than what the log replays to. */
export interface MastodonDrift {
  readonly account: string;
  readonly model: 'mastodon';
  readonly table: 'custom_filters' | 'custom_filter_keywords' | 'custom_filter_statuses';
  /** The row's id (the filter's, the keyword's, the filter-status's: the API's ids). */
  readonly id: string;
  /** The column that differs; `exists` when the row is on one side only. */
  readonly field: string;
  readonly live: unknown;
  readonly log: unknown;
}

/** The rows the log says an account's filters are (its live views; a deleted one has none). */
export function expectedRows(views: readonly FilterView[]): AccountRows {
  const rows = views.map(mastodonRowsOf);
  const byId = <T extends { id: string }>(list: T[]) => list.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0));
  return {
    filters: byId(rows.flatMap((r) => (r.filter ? [r.filter] : []))),
    keywords: byId(rows.flatMap((r) => [...r.keywords])),
    statuses: byId(rows.flatMap((r) => [...r.statuses])),
  };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function tableDrift<T extends { readonly id: string }>(account: string, table: MastodonDrift['table'], live: readonly T[], log: readonly T[]): MastodonDrift[] {
  const found: MastodonDrift[] = [];
  const logById = new Map(log.map((row) => [row.id, row]));
  const liveIds = new Set(live.map((row) => row.id));
  for (const row of live) {
    const wanted = logById.get(row.id);
    if (!wanted) {
      found.push({ account, model: 'mastodon', table, id: row.id, field: 'exists', live: true, log: false });
      continue;
    }
    for (const field of Object.keys(wanted) as (keyof T & string)[])
      if (!same(row[field], wanted[field])) found.push({ account, model: 'mastodon', table, id: row.id, field, live: row[field], log: wanted[field] });
  }
  for (const row of log) if (!liveIds.has(row.id)) found.push({ account, model: 'mastodon', table, id: row.id, field: 'exists', live: false, log: true });
  return found;
}

/**
 * Every difference between one account's rows in Mastodon's three tables and the rows its filters,
 * replayed from the log, stand for: a row on one side only, or a column (phrase, context, action,
 * expires_at, keyword, whole_word, status_id, the filter a row belongs to) that differs. Timestamps are
 * not compared: Mastodon's web UI stamps its own. Pure: the caller reads both sides.
 */
export function mastodonDrift(account: string, live: AccountRows, log: AccountRows): MastodonDrift[] {
  return [
    ...tableDrift(account, 'custom_filters', live.filters, log.filters),
    ...tableDrift(account, 'custom_filter_keywords', live.keywords, log.keywords),
    ...tableDrift(account, 'custom_filter_statuses', live.statuses, log.statuses),
  ];
}
