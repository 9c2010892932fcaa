import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

/**
 * Opens a SQLite file the way every embedded adapter needs it: WAL so readers never block the writer and
 * other processes (the CLI) can share the file, FULL sync so an acknowledged write survives a power cut,
 * and a busy timeout so a second process waits for the write lock instead of failing.
 */
export function openSqlite(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}
