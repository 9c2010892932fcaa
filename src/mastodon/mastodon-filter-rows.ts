import type pg from 'pg';
import { FILTER_LIMITS } from '../commands/filter/filter-limits.ts';
import { KEYWORD_LENGTH_LIMIT, TITLE_LENGTH_LIMIT } from '../commands/filter/filter-rules.ts';
import { mastodonQuery } from './mastodon-query.ts';

/** A time of Mastodon's (a `timestamp` column, UTC by Rails' convention) in milliseconds; null when none or out of range. */
type Millis = number | null;

/** One row of custom_filters, cut to what a filter could hold here, so that a hostile row costs no more than a valid one. */
export interface MastodonFilterRow {
  readonly id: string;
  readonly accountId: string;
  /** False for an account with no `users` row (a remote account): nobody could sign in to use the filter. */
  readonly localUser: boolean;
  /** At most one character past the limit, enough for the rule to refuse it. */
  readonly phrase: string;
  readonly context: readonly string[];
  readonly contextEntries: number;
  readonly action: number;
  readonly expiresAtMs: Millis;
  readonly expiresAtText: string | null;
  readonly createdAtMs: Millis;
  readonly updatedAtMs: Millis;
}

export interface MastodonKeywordRow {
  readonly id: string;
  readonly keyword: string;
  readonly wholeWord: boolean;
  readonly createdAtMs: Millis;
  readonly updatedAtMs: Millis;
}

export interface MastodonFilterStatusRow {
  readonly id: string;
  readonly statusId: string;
  readonly createdAtMs: Millis;
  readonly updatedAtMs: Millis;
}

/** Context entries read from one row: Mastodon's five, and room for duplicates and blanks it strips. */
export const CONTEXT_ENTRIES_READ = 64;

// Rails writes UTC into `timestamp without time zone`; extract(epoch ...) reads such a value as UTC,
// whatever the server's or this process's time zone (node-postgres would parse it as local time).
const millis = (column: string) => `floor(extract(epoch FROM ${column}) * 1000)::float8`;

const FILTERS = `
  SELECT f.id::text AS id, f.account_id::text AS account_id,
         EXISTS (SELECT 1 FROM users u WHERE u.account_id = f.account_id) AS local_user,
         left(f.phrase, ${TITLE_LENGTH_LIMIT + 1}) AS phrase,
         ARRAY(SELECT left(c, 64) FROM unnest(f.context[1:${CONTEXT_ENTRIES_READ}]) AS c) AS context,
         cardinality(f.context) AS context_entries, f.action,
         ${millis('f.expires_at')} AS expires_ms, f.expires_at::text AS expires_text,
         ${millis('f.created_at')} AS created_ms, ${millis('f.updated_at')} AS updated_ms
    FROM custom_filters f WHERE f.id > $1::bigint ORDER BY f.id LIMIT $2`;

// One more than a filter may hold, so that the limit's rule sees it is passed; in Mastodon's order (ids).
const KEYWORDS = `
  SELECT id::text AS id, left(keyword, ${KEYWORD_LENGTH_LIMIT + 1}) AS keyword, whole_word,
         ${millis('created_at')} AS created_ms, ${millis('updated_at')} AS updated_ms
    FROM custom_filter_keywords WHERE custom_filter_id = $1::bigint ORDER BY id LIMIT ${FILTER_LIMITS.keywordsPerFilter + 1}`;

const STATUSES = `
  SELECT id::text AS id, status_id::text AS status_id, ${millis('created_at')} AS created_ms, ${millis('updated_at')} AS updated_ms
    FROM custom_filter_statuses WHERE custom_filter_id = $1::bigint ORDER BY id LIMIT ${FILTER_LIMITS.statusesPerFilter + 1}`;

interface FilterColumns {
  id: string;
  account_id: string;
  local_user: boolean;
  phrase: string;
  context: string[];
  context_entries: number;
  action: number;
  expires_ms: number | null;
  expires_text: string | null;
  created_ms: number | null;
  updated_ms: number | null;
}

/**
 * Mastodon's filters as its tables hold them, read only (a SELECT on the three tables and `users`):
 * filters in pages by id, each filter's keywords and statuses by a query of its own, so memory stays
 * bounded by one page and one filter's rows, whatever the tables hold.
 */
export class MastodonFilterRows {
  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly pageSize = 200,
  ) {}

  /** The tables an import reads that Mastodon mode's start does not check; the missing ones. */
  async missingTables(): Promise<string[]> {
    const rows = await mastodonQuery<{ name: string; present: boolean }>(
      this.pool,
      'SELECT name, to_regclass(name) IS NOT NULL AS present FROM unnest($1::text[]) AS name',
      [['custom_filters', 'custom_filter_keywords', 'custom_filter_statuses']],
    );
    return rows.filter((row) => !row.present).map((row) => row.name);
  }

  async *filters(): AsyncGenerator<MastodonFilterRow> {
    let after = '0';
    for (;;) {
      const page = await mastodonQuery<FilterColumns>(this.pool, FILTERS, [after, this.pageSize]);
      for (const row of page) {
        yield {
          id: row.id,
          accountId: row.account_id,
          localUser: row.local_user,
          phrase: row.phrase,
          context: row.context,
          contextEntries: row.context_entries,
          action: row.action,
          expiresAtMs: row.expires_ms,
          expiresAtText: row.expires_text,
          createdAtMs: row.created_ms,
          updatedAtMs: row.updated_ms,
        };
      }
      if (page.length < this.pageSize) return;
      after = page.at(-1)!.id;
    }
  }

  async keywords(filterId: string): Promise<MastodonKeywordRow[]> {
    const rows = await mastodonQuery<{ id: string; keyword: string; whole_word: boolean; created_ms: number; updated_ms: number }>(this.pool, KEYWORDS, [
      filterId,
    ]);
    return rows.map((r) => ({ id: r.id, keyword: r.keyword, wholeWord: r.whole_word, createdAtMs: r.created_ms, updatedAtMs: r.updated_ms }));
  }

  async statuses(filterId: string): Promise<MastodonFilterStatusRow[]> {
    const rows = await mastodonQuery<{ id: string; status_id: string; created_ms: number; updated_ms: number }>(this.pool, STATUSES, [filterId]);
    return rows.map((r) => ({ id: r.id, statusId: r.status_id, createdAtMs: r.created_ms, updatedAtMs: r.updated_ms }));
  }
}
