import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

/**
 * `full`: an acknowledged write survives a power cut (events, accounts, mail). `rebuildable`: for data
 * derived from the event log (read models), whose checkpoint lives in the same file: WAL keeps it
 * consistent, and a transaction lost to a power cut is simply projected again.
 */
export type Durability = 'full' | 'rebuildable';

/**
 * Opens a SQLite file the way every embedded adapter needs it: WAL so readers never block the writer and
 * other processes (the CLI) can share the file, and a busy timeout so a second process waits for the
 * write lock instead of failing.
 */
export function openSqlite(path: string, durability: Durability = 'full'): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

/** Prepares each SQL text once per connection; preparing is a large part of a small query's cost. */
export function statementCache(db: SqliteDatabase) {
  const cache = new Map<string, Database.Statement>();
  return <Params extends unknown[] = unknown[], Row = unknown>(sql: string): Database.Statement<Params, Row> => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement as unknown as Database.Statement<Params, Row>;
  };
}
