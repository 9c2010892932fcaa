import pg from 'pg';

/** One filter's rows in Mastodon's three tables, read on a connection of its own (what a new reader sees). */
export interface FilterRowsRead {
  readonly filter: { id: string; account_id: string; phrase: string; context: string[]; action: number; expires_at: string | null; xmin: string } | null;
  readonly keywords: { id: string; keyword: string; whole_word: boolean; xmin: string }[];
  readonly statuses: { id: string; status_id: string; xmin: string }[];
}

/**
 * Reads a filter's rows on a fresh connection, so nothing of the caller's pool (an open transaction, a
 * cached snapshot) can make them look committed: each row with `xmin`, the transaction that wrote it.
 */
export async function freshFilterRows(url: string, filterId: string): Promise<FilterRowsRead> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const filter = await client.query(
      `SELECT id::text, account_id::text, phrase, context, action, to_char(expires_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at, xmin::text
         FROM custom_filters WHERE id = $1`,
      [filterId],
    );
    const keywords = await client.query(
      'SELECT id::text, keyword, whole_word, xmin::text FROM custom_filter_keywords WHERE custom_filter_id = $1 ORDER BY id',
      [filterId],
    );
    const statuses = await client.query('SELECT id::text, status_id::text, xmin::text FROM custom_filter_statuses WHERE custom_filter_id = $1 ORDER BY id', [
      filterId,
    ]);
    return { filter: filter.rows[0] ?? null, keywords: keywords.rows, statuses: statuses.rows };
  } finally {
    await client.end();
  }
}

/** What the API's v2 filter answer says the rows must be (Mastodon's action integers, ids as the API gives them). */
export function rowsOfAnswer(answer: any, accountId: string) {
  return {
    filter: {
      id: answer.id,
      account_id: accountId,
      phrase: answer.title,
      context: answer.context,
      action: { warn: 0, hide: 1, blur: 2 }[answer.filter_action as string],
      expires_at: answer.expires_at === null ? null : new Date(answer.expires_at).toISOString(),
    },
    keywords: answer.keywords.map((k: any) => ({ id: k.id, keyword: k.keyword, whole_word: k.whole_word })),
    statuses: answer.statuses.map((s: any) => ({ id: s.id, status_id: s.status_id })),
  };
}

/** The read rows without their transaction ids, to compare with rowsOfAnswer. */
export function withoutXmin(rows: FilterRowsRead) {
  const { filter, keywords, statuses } = rows;
  return {
    filter: filter && {
      id: filter.id,
      account_id: filter.account_id,
      phrase: filter.phrase,
      context: filter.context,
      action: filter.action,
      expires_at: filter.expires_at,
    },
    keywords: keywords.map(({ id, keyword, whole_word }) => ({ id, keyword, whole_word })),
    statuses: statuses.map(({ id, status_id }) => ({ id, status_id })),
  };
}
