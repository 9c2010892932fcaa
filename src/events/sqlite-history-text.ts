import { accountEventsStream } from '../accounts/account-events.ts';
import type { SqliteDatabase } from '../shared/sqlite.ts';
import { accountEventsSql } from './sqlite-account-index.ts';
import { USAGE_CATEGORY } from './account-usage-events.ts';
import { HISTORY_TEXT_COLUMNS, historyTextLine, type HistoryChunk, type HistoryTextQuery } from './history-text.ts';

const PAGE = 4096;

/**
 * The export's lines from `events.sqlite`. The whole log is read a page at a time by position, each page
 * its own short read, so a long export never keeps the write-ahead log from being checkpointed. An
 * account's events come from its streams (the account index and its own stream) sorted by SQLite, which spills a large
 * sort to disk, read row by row: the memory held is one chunk, whatever the account's history.
 */
/** The whole log as `events` shows it: the usage ledgers left out (event-history.ts). */
const NOT_A_USAGE_LEDGER = `substr(stream, 1, ${USAGE_CATEGORY.length + 1}) <> '${USAGE_CATEGORY}-'`;

export function* sqliteHistoryText(db: SqliteDatabase, query: HistoryTextQuery): Generator<HistoryChunk> {
  if (query.accountId !== undefined) {
    const rows = db
      .prepare<[string, string], unknown[]>(accountEventsSql(HISTORY_TEXT_COLUMNS, 4))
      .raw(true)
      .iterate(query.accountId, accountEventsStream(query.accountId));
    let chunk = '';
    let lines = 0;
    for (const row of rows) {
      chunk += historyTextLine(row);
      if (++lines === PAGE) {
        yield { text: chunk, events: lines };
        [chunk, lines] = ['', 0];
      }
    }
    if (lines > 0) yield { text: chunk, events: lines };
    return;
  }
  const page = db
    .prepare<[number | bigint], unknown[]>(
      `SELECT ${HISTORY_TEXT_COLUMNS} FROM events WHERE position > ? AND ${NOT_A_USAGE_LEDGER} ORDER BY position LIMIT ${PAGE}`,
    )
    .raw(true);
  for (let after: number | bigint = 0; ;) {
    const rows = page.all(after);
    if (rows.length === 0) return;
    let chunk = '';
    for (const row of rows) chunk += historyTextLine(row);
    yield { text: chunk, events: rows.length };
    if (rows.length < PAGE) return;
    after = rows.at(-1)![3] as number | bigint;
  }
}
