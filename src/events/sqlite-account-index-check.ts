import type { SqliteDatabase } from '../shared/sqlite.ts';
import { CREATION } from './sqlite-account-index.ts';

interface Mismatch {
  readonly stream: string;
  readonly expected: string | null;
  readonly found: string | null;
  readonly position: number | bigint | null;
}

/**
 * The index as the log says it must be, against the index as stored: each filter stream's owner is the
 * account its first FilterCreated names (the trigger's rule, sqlite-account-index.ts). The chains prove
 * the log; the index is not hashed, so this comparison is what proves the index. First rows where they
 * differ: a stream missing or given to another account, then a row naming a stream no creation event has.
 */
const MISMATCHES = `
  WITH expected AS (
    SELECT stream, json_extract(data, '$.accountId') AS account_id, min(position) AS position
    FROM events WHERE ${CREATION('events')} GROUP BY stream
  )
  SELECT * FROM (
    SELECT e.stream, e.account_id AS expected, o.account_id AS found, e.position FROM expected e
    LEFT JOIN stream_owners o ON o.stream = e.stream WHERE o.account_id IS NOT e.account_id
    ORDER BY e.position LIMIT 1
  )
  UNION ALL
  SELECT * FROM (
    SELECT o.stream, NULL, o.account_id, NULL FROM stream_owners o
    WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.stream = o.stream)
    ORDER BY o.stream LIMIT 1
  )`;

/** Null when `stream_owners` is exactly what the log implies; else a sentence naming the first difference. */
export function accountIndexMismatch(db: SqliteDatabase): { readonly position: bigint | null; readonly reason: string } | null {
  const first = db.prepare<[], Mismatch>(MISMATCHES).get();
  if (!first) return null;
  const { stream, expected, found } = first;
  const position = first.position === null ? null : BigInt(first.position);
  const hidden = 'events --account, export --account and filters --as-of would show it to the wrong account or to none';
  const reason =
    found === null
      ? `account index altered: stream ${stream} is created by account ${expected}, but stream_owners has no row for it (${hidden})`
      : expected === null
        ? `account index altered: stream_owners gives stream ${stream} to account ${found}, but no event of the log creates it`
        : `account index altered: stream ${stream} is created by account ${expected}, but stream_owners gives it to account ${found} (${hidden})`;
  return { position, reason };
}
