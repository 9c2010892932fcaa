import type { MastodonTestDatabase, MastodonUser } from './mastodon-database.ts';
import { snowflake } from './mastodon-database.ts';

export interface MastodonFilterFields {
  readonly phrase?: string;
  readonly context?: readonly string[];
  /** The column's integer (0 warn, 1 hide, 2 blur), or anything a hostile row may hold. */
  readonly action?: number;
  /** SQL for the column, e.g. `now() + interval '1 day'`, `'infinity'`; null: none. */
  readonly expiresAt?: string | null;
  readonly keywords?: readonly (string | { keyword: string; wholeWord: boolean })[];
  /** This many statuses of the account, filtered. */
  readonly statuses?: number;
  readonly createdAt?: string;
}

export interface MastodonFilterIds {
  readonly id: string;
  readonly keywordIds: readonly string[];
  readonly filterStatusIds: readonly string[];
}

/**
 * A filter as Mastodon's settings page or its API writes one: a custom_filters row, its keywords and its
 * statuses (each a row of `statuses` of the account), with the ids Mastodon's sequences give them.
 */
export async function insertMastodonFilter(db: MastodonTestDatabase, user: MastodonUser, fields: MastodonFilterFields = {}): Promise<MastodonFilterIds> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO custom_filters (account_id, phrase, context, action, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, ${fields.expiresAt ?? 'NULL'}, ${fields.createdAt ?? "now() AT TIME ZONE 'UTC' - interval '30 days'"}, now() AT TIME ZONE 'UTC' - interval '2 days')
     RETURNING id::text`,
    [user.accountId, fields.phrase ?? 'Spoilers', fields.context ?? ['home', 'notifications'], fields.action ?? 0],
  );
  const id = rows[0]!.id;
  const keywords = (fields.keywords ?? ['finale']).map((k) => (typeof k === 'string' ? { keyword: k, wholeWord: true } : k));
  const keywordIds: string[] = [];
  for (const { keyword, wholeWord } of keywords) {
    const inserted = await db.pool.query<{ id: string }>(
      `INSERT INTO custom_filter_keywords (custom_filter_id, keyword, whole_word, created_at, updated_at)
       VALUES ($1, $2, $3, now() AT TIME ZONE 'UTC' - interval '20 days', now() AT TIME ZONE 'UTC' - interval '3 days') RETURNING id::text`,
      [id, keyword, wholeWord],
    );
    keywordIds.push(inserted.rows[0]!.id);
  }
  const filterStatusIds: string[] = [];
  for (let i = 0; i < (fields.statuses ?? 0); i += 1) {
    const statusId = snowflake();
    await db.pool.query(`INSERT INTO statuses (id, text, created_at, updated_at, account_id) VALUES ($1, 'a toot', now(), now(), $2)`, [
      statusId,
      user.accountId,
    ]);
    const inserted = await db.pool.query<{ id: string }>(
      `INSERT INTO custom_filter_statuses (custom_filter_id, status_id, created_at, updated_at)
       VALUES ($1, $2, now() AT TIME ZONE 'UTC' - interval '10 days', now() AT TIME ZONE 'UTC' - interval '10 days') RETURNING id::text`,
      [id, statusId],
    );
    filterStatusIds.push(inserted.rows[0]!.id);
  }
  return { id, keywordIds, filterStatusIds };
}

const EXPIRES = `CASE WHEN f.expires_at IS NULL THEN NULL ELSE to_char(f.expires_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END`;
const ACTION = `(ARRAY['warn', 'hide', 'blur'])[f.action + 1]`;

/**
 * What Mastodon's own API answers for the account, computed from its tables alone (the serializers
 * REST::FilterSerializer, REST::FilterKeywordSerializer, REST::FilterStatusSerializer and
 * REST::V1::FilterSerializer, field for field; Rails renders times in UTC with milliseconds), in id
 * order, which is the order its unordered queries give rows inserted in id order.
 */
export async function mastodonShows(db: MastodonTestDatabase, accountId: string): Promise<{ v2: unknown[]; v1: unknown[] }> {
  const v2 = await db.pool.query<{ json: unknown }>(
    `SELECT json_build_object(
       'id', f.id::text, 'title', f.phrase, 'context', to_json(f.context), 'expires_at', ${EXPIRES}, 'filter_action', ${ACTION},
       'keywords', COALESCE((SELECT json_agg(json_build_object('id', k.id::text, 'keyword', k.keyword, 'whole_word', k.whole_word) ORDER BY k.id)
                             FROM custom_filter_keywords k WHERE k.custom_filter_id = f.id), '[]'),
       'statuses', COALESCE((SELECT json_agg(json_build_object('id', s.id::text, 'status_id', s.status_id::text) ORDER BY s.id)
                             FROM custom_filter_statuses s WHERE s.custom_filter_id = f.id), '[]')) AS json
     FROM custom_filters f WHERE f.account_id = $1 ORDER BY f.id`,
    [accountId],
  );
  const v1 = await db.pool.query<{ json: unknown }>(
    `SELECT json_build_object('id', k.id::text, 'phrase', k.keyword, 'context', to_json(f.context), 'whole_word', k.whole_word,
                              'expires_at', ${EXPIRES}, 'irreversible', f.action = 1) AS json
     FROM custom_filter_keywords k JOIN custom_filters f ON f.id = k.custom_filter_id WHERE f.account_id = $1 ORDER BY k.id`,
    [accountId],
  );
  return { v2: v2.rows.map((r) => r.json), v1: v1.rows.map((r) => r.json) };
}

/** Every row of the three filter tables, to show an import left them as they were. */
export async function filterTablesSnapshot(db: MastodonTestDatabase): Promise<string> {
  const tables = ['custom_filters', 'custom_filter_keywords', 'custom_filter_statuses'];
  const parts = await Promise.all(tables.map((t) => db.pool.query(`SELECT coalesce(json_agg(t ORDER BY t.id), '[]')::text AS rows FROM ${t} t`)));
  return parts.map((p) => p.rows[0].rows as string).join('\n');
}

/**
 * `count` filters of the account in one statement, each with `keywords` keywords of `keywordLength`
 * characters (Mastodon's sequences give them their ids), for imports of many filters or large ones.
 */
export async function insertManyMastodonFilters(
  db: MastodonTestDatabase,
  accountId: string,
  { count, keywords = 1, keywordLength = 8 }: { count: number; keywords?: number; keywordLength?: number },
): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO custom_filters (account_id, phrase, context, created_at, updated_at)
     SELECT $1, 'filter ' || n, '{home}', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC' FROM generate_series(1, $2) AS n RETURNING id::text`,
    [accountId, count],
  );
  const ids = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  await db.pool.query(
    `INSERT INTO custom_filter_keywords (custom_filter_id, keyword, whole_word, created_at, updated_at)
     SELECT f, left(n || '-' || repeat('k', $3), $3), true, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
       FROM unnest($1::bigint[]) AS f, generate_series(1, $2) AS n ORDER BY f, n`,
    [ids, keywords, keywordLength],
  );
  return ids;
}
