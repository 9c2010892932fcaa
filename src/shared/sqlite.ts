import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { ensureDirectory } from './directories.ts';
import { createPrivateFile } from './private-files.ts';
import { retrySync } from './async-retry.ts';
import { isBusy, MAIN_THREAD_BUSY_TIMEOUT_MS } from './sqlite-busy.ts';
import { migrateSqlite, type SqliteSchema } from './sqlite-migrations.ts';

export type SqliteDatabase = Database.Database;

/**
 * `full`: an acknowledged write survives a power cut (events, accounts, mail). `rebuildable`: for data
 * derived from the event log (read models), whose checkpoint lives in the same file: WAL keeps it
 * consistent, and a transaction lost to a power cut is simply projected again.
 */
export type Durability = 'full' | 'rebuildable';

/** A SQLite file that cannot be opened; the message names it (SQLite's own does not). */
export class SqliteOpenError extends Error {
  override readonly name = 'SqliteOpenError';
}

/**
 * `main-thread`: a connection the service's requests use, which waits only MAIN_THREAD_BUSY_TIMEOUT_MS
 * inside SQLite once open (its calls retry asynchronously, see sqlite-busy.ts); `blocking`: one that may
 * sleep up to 5 s for a lock (a worker thread, the CLI).
 */
export type BusyWait = 'main-thread' | 'blocking';

/**
 * Opens a SQLite file the way every embedded adapter needs it: WAL so readers never block the writer and
 * other processes (the CLI) can share the file, a busy timeout so a second process waits for the
 * write lock instead of failing, and its schema brought up to date (or refused when newer than this build).
 */
export function openSqlite(path: string, schema: SqliteSchema, durability: Durability = 'full', busyWait: BusyWait = 'blocking'): SqliteDatabase {
  if (path !== ':memory:') {
    makeDirectory(dirname(path));
    makePrivate(path);
  }
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path);
    // First: switching to WAL takes a lock, and a second process opening the file at the same moment
    // must wait for it (SQLITE_BUSY "database is locked" otherwise), as every later statement does; the
    // switch itself also needs retries of its own (switchToWal).
    db.pragma('busy_timeout = 5000');
    switchToWal(db);
    db.pragma(durability === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db, schema);
    // Opening may wait (at start, once); serving may not: SQLite's busy wait sleeps the whole event loop.
    if (busyWait === 'main-thread') db.pragma(`busy_timeout = ${MAIN_THREAD_BUSY_TIMEOUT_MS}`);
    return db;
  } catch (error) {
    db?.close();
    // "unable to open database file" alone does not say which file, nor that its directory is the cause.
    if (error instanceof Database.SqliteError && /^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(error.code)) {
      throw new SqliteOpenError(`cannot open ${path}: ${error.message} (is ${dirname(path)} writable by this user?)`, { cause: error });
    }
    throw error;
  }
}

/** How long a second process opening a new file waits for the first's switch to WAL. */
const WAL_SWITCH_LIMIT_MS = 5000;

/**
 * Switching a new file to WAL writes its header; when another process writes the file at that moment (its
 * own switch, or its schema), SQLite answers SQLITE_BUSY without calling the busy handler, since the pragma
 * already holds a read transaction and a reader waiting for the write lock could deadlock
 * (sqlite/src/btree.c, sqlite3BtreeBeginTrans: the busy handler runs only while `inTransaction ==
 * TRANS_NONE`). Two API processes started at once on a fresh data directory met it in CI; here, once in
 * 200 such starts.
 */
function switchToWal(db: SqliteDatabase): void {
  retrySync(() => db.pragma('journal_mode = WAL'), {
    backOff: { firstMs: 1, maxMs: 50, jitterMs: 2 },
    shouldRetryError: (error, { elapsedMs }) => isBusy(error) && elapsedMs < WAL_SWITCH_LIMIT_MS,
  });
}

/** Before SQLite creates the file 0644: a new store (and so its -wal and -shm) is its owner's only. */
function makePrivate(path: string): void {
  try {
    createPrivateFile(path);
  } catch {
    // An unwritable directory: SQLite's own open fails next, and the error below names the file.
  }
}

function makeDirectory(dir: string): void {
  try {
    ensureDirectory(dir);
  } catch (error) {
    throw new SqliteOpenError(`cannot use ${dir} for SQLite files: ${(error as Error).message}`, { cause: error });
  }
}

export interface ConnectionDurability {
  readonly journalMode: string;
  readonly synchronous: 'off' | 'normal' | 'full' | 'extra';
}

const SYNCHRONOUS_LEVELS = ['off', 'normal', 'full', 'extra'] as const;

/** What an open connection really does, read back from SQLite rather than taken from what was asked. */
export function durabilityOf(db: SqliteDatabase): ConnectionDurability {
  const journalMode = String(db.pragma('journal_mode', { simple: true }));
  const level = Number(db.pragma('synchronous', { simple: true }));
  return { journalMode, synchronous: SYNCHRONOUS_LEVELS[level] ?? 'off' };
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
