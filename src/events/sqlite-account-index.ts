import type { SqliteStep } from '../shared/sqlite-migrations.ts';
import { FILTER_CATEGORY } from './filter-events.ts';
import { EVENT_COLUMNS } from './sqlite-event-rows.ts';

const PREFIX = `${FILTER_CATEGORY}-`;

/** A filter stream's creation event, with the account it names; one condition for the trigger and the backfill. */
export const CREATION = (row: string) =>
  `${row}.type = 'FilterCreated' AND substr(${row}.stream, 1, ${PREFIX.length}) = '${PREFIX}'
   AND json_valid(${row}.data) AND json_type(${row}.data, '$.accountId') = 'text'`;

/**
 * Schema step of `events.sqlite`: which account owns each filter stream, kept by a trigger in the
 * append's own transaction (so the index can never miss a committed event, whichever process appends),
 * and filled from the events already in the file. The first FilterCreated of a stream names its owner,
 * as it does for the read model's fold.
 */
export const accountIndexStep: SqliteStep = {
  version: 2,
  description: 'stream_owners: the account that owns each filter stream, for the auditor queries by account',
  up: (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS stream_owners (stream TEXT PRIMARY KEY, account_id TEXT NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS stream_owners_by_account ON stream_owners (account_id, stream);
      CREATE TRIGGER IF NOT EXISTS stream_owner_on_creation AFTER INSERT ON events WHEN ${CREATION('NEW')}
      BEGIN
        INSERT OR IGNORE INTO stream_owners (stream, account_id) VALUES (NEW.stream, json_extract(NEW.data, '$.accountId'));
      END;
      INSERT OR IGNORE INTO stream_owners (stream, account_id)
        SELECT stream, json_extract(data, '$.accountId') FROM events WHERE ${CREATION('events')} ORDER BY position;
    `),
};

/**
 * The account's events: its filter streams from the index and its own stream (`account-<id>`, whose
 * name says whose it is, so it needs no index entry), each stream's events by (stream, revision), then
 * sorted. CROSS JOIN fixes that order, so the planner can never prefer walking the log by position.
 * Parameters: the account id, then its own stream's name; `positionColumn` is where `columns` puts
 * events.position (1-based), the order of the whole union.
 */
export function accountEventsSql(columns: string, positionColumn: number): string {
  return `
  SELECT ${columns} FROM stream_owners CROSS JOIN events ON events.stream = stream_owners.stream
  WHERE stream_owners.account_id = ?
  UNION ALL
  SELECT ${columns} FROM events WHERE events.stream = ?
  ORDER BY ${positionColumn}`;
}

export const ACCOUNT_EVENTS_SQL = accountEventsSql(EVENT_COLUMNS, 1);
