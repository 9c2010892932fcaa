import type pg from 'pg';
import type { CustomFilterKeywordRow, CustomFilterRow, CustomFilterStatusRow } from './mastodon-filter-rows.ts';
import { fromUtc, query } from './mastodon-sql.ts';

/** Rows of Mastodon's three filter tables, each list in id order. */
export interface AccountRows {
  readonly filters: readonly CustomFilterRow[];
  readonly keywords: readonly CustomFilterKeywordRow[];
  readonly statuses: readonly CustomFilterStatusRow[];
}

/**
 * The keyword and status rows `where` picks (a condition on `custom_filter_id`), and given an account,
 * that account's `custom_filters` rows: ids as text, instants as ISO text in UTC.
 */
export async function readAccountRows(pool: Pick<pg.Pool, 'query'>, where: string, values: unknown[], accountId?: string): Promise<AccountRows> {
  const [filters, keywords, statuses] = await Promise.all([
    accountId === undefined
      ? []
      : query<CustomFilterRow>(
          pool,
          `SELECT id::text, account_id::text, phrase, context, action, ${fromUtc('expires_at')} AS expires_at
             FROM custom_filters WHERE account_id = $1::bigint ORDER BY id`,
          [accountId],
        ),
    query<CustomFilterKeywordRow>(
      pool,
      `SELECT id::text, custom_filter_id::text, keyword, whole_word FROM custom_filter_keywords WHERE ${where} ORDER BY id`,
      values,
    ),
    query<CustomFilterStatusRow>(
      pool,
      `SELECT id::text, custom_filter_id::text, status_id::text FROM custom_filter_statuses WHERE ${where} ORDER BY id`,
      values,
    ),
  ]);
  return { filters, keywords, statuses };
}
