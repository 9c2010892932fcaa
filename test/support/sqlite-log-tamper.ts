import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { chainHash, eventHash, GENESIS, recordedEventHash } from '../../src/events/event-chain.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { scratchDir } from './scratch-dir.ts';

/** Changes to a copy of an `events.sqlite`, as someone with the file (not the service) could make them. */

type Column = 'data' | 'metadata' | 'type';

/** A fresh data directory holding a copy of `dir`'s event log; the original stays as it is. */
export function copyOfLog(dir: string): string {
  const copy = scratchDir('tampered-');
  mkdirSync(copy, { recursive: true });
  copyFileSync(join(dir, 'events.sqlite'), join(copy, 'events.sqlite'));
  return copy;
}

function withLog<T>(dir: string, change: (db: Database.Database) => T): T {
  const db = new Database(join(dir, 'events.sqlite'));
  try {
    return change(db);
  } finally {
    db.close();
  }
}

/** One byte of one column of the event at `position` replaced by another ASCII letter. */
export function changeOneByte(dir: string, position: bigint, column: Column, at: number): void {
  withLog(dir, (db) => {
    const text = (db.prepare(`SELECT ${column} AS text FROM events WHERE position = ?`).get(position) as { text: string }).text;
    const replaced = text[at] === 'x' ? 'y' : 'x';
    db.prepare(`UPDATE events SET ${column} = ? WHERE position = ?`).run(text.slice(0, at) + replaced + text.slice(at + 1), position);
  });
}

export function deleteEvent(dir: string, position: bigint): void {
  withLog(dir, (db) => db.prepare('DELETE FROM events WHERE position = ?').run(position));
}

/** The last `count` events removed, as a restored older copy or a cut file would be. */
export function truncateTail(dir: string, count: number): void {
  withLog(dir, (db) => db.prepare('DELETE FROM events WHERE position IN (SELECT position FROM events ORDER BY position DESC LIMIT ?)').run(count));
}

/** The two events trade places in the log, each with everything stored beside it (ids, hashes). */
export function swapEvents(dir: string, a: bigint, b: bigint): void {
  withLog(dir, (db) => {
    const row = db.prepare('SELECT * FROM events WHERE position = ?');
    const [first, second] = [row.get(a), row.get(b)] as Record<string, unknown>[];
    const put = db.prepare(
      'INSERT INTO events (position, event_id, stream, revision, type, data, metadata, recorded_at, prev_hash, event_hash, chain_hash, hash_version) ' +
        'VALUES (@position, @event_id, @stream, @revision, @type, @data, @metadata, @recorded_at, @prev_hash, @event_hash, @chain_hash, @hash_version)',
    );
    db.transaction(() => {
      db.prepare('DELETE FROM events WHERE position IN (?, ?)').run(a, b);
      put.run({ ...second, position: a });
      put.run({ ...first, position: b });
    })();
  });
}

/**
 * One byte changed, then every hash from there on computed again with the published formula: what a
 * forger who knows the scheme does. Only a head recorded before (`verify --expect`) can show it.
 */
export function rewriteHistory(dir: string, position: bigint): void {
  changeOneByte(dir, position, 'data', 2);
  rehash(dir);
}

/** Every hash computed again from the rows, each with the formula its `hash_version` names. */
export function rehash(dir: string): void {
  withLog(dir, (db) => {
    const rows = db
      .prepare('SELECT position, event_id, stream, revision, type, data, metadata, recorded_at, hash_version FROM events ORDER BY position')
      .all() as {
      position: number;
      event_id: string;
      recorded_at: string;
      hash_version: number | null;
      stream: string;
      revision: number;
      type: string;
      data: string;
      metadata: string;
    }[];
    const streams = new Map<string, string>();
    let chain = GENESIS;
    const store = db.prepare('UPDATE events SET prev_hash = ?, event_hash = ?, chain_hash = ? WHERE position = ?');
    for (const row of rows) {
      const previous = streams.get(row.stream) ?? GENESIS;
      const recorded = { ...row, eventId: row.event_id, recordedAt: row.recorded_at };
      const hashed = row.hash_version === null ? eventHash(row, previous) : recordedEventHash(recorded, previous);
      chain = chainHash(chain, row.position, hashed);
      streams.set(row.stream, hashed);
      store.run(previous, hashed, chain, row.position);
    }
  });
}

/**
 * The log as a build before schema version 4 wrote it: version 1 hashes (no event id, no recorded time),
 * no `hash_version` column, no trigger asking for it, schema version 3.
 */
export function asVersionThreeLog(dir: string): void {
  withLog(dir, (db) => db.exec('UPDATE events SET hash_version = NULL'));
  rehash(dir);
  withLog(dir, (db) => db.exec('DROP TRIGGER events_need_recorded_hash; ALTER TABLE events DROP COLUMN hash_version; PRAGMA user_version = 3;'));
}

/** The stored text of one column of the event at `position` replaced, and nothing else. */
export function setColumn(dir: string, position: bigint, column: 'recorded_at' | 'event_id' | 'hash_version', value: string | number | null): void {
  withLog(dir, (db) => db.prepare(`UPDATE events SET ${column} = ? WHERE position = ?`).run(value, position));
}

/** Ten events of three filters, interleaved: positions 1..10, each stream's revisions spread over the log. */
export async function writeLog(dir: string): Promise<void> {
  const store = SqliteEventStore.inDataDir(dir);
  const streams = [randomUUID(), randomUUID(), randomUUID()].map(filterStream);
  const revisions = new Map<string, bigint>();
  try {
    for (const index of [0, 1, 0, 2, 1, 0, 2, 1, 0, 2]) {
      const stream = streams[index]!;
      const revision = revisions.get(stream);
      const metadata = { accountId: `account-${index}`, requestId: randomUUID(), commitIndex: 0, commitSize: 1 };
      const data = { filterId: stream.slice(7), title: `title of ${stream}`, keywords: ['one', 'two'] };
      const type = revision === undefined ? 'FilterCreated' : 'FilterUpdated';
      const result = await store.appendToStream(stream, [{ type, data, metadata }], revision ?? 'no_stream');
      revisions.set(stream, result.nextRevision);
    }
  } finally {
    await store.close();
  }
}
