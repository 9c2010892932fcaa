import { setTimeout as delay } from 'node:timers/promises';
import type { SqliteDatabase } from '../../shared/sqlite.ts';

/** The longest pause between two tries for the write lock: how long a freed lock may stay unnoticed. */
const MAX_PAUSE_MS = 4;

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/**
 * Runs `write`, a transaction that takes the write lock first (`BEGIN IMMEDIATE`), without SQLite's
 * busy wait: that wait sleeps on the event loop, so every request of the process would stall for as
 * long as another connection (a rebuild) holds the lock. While the lock is taken, this tries again after
 * a pause of a few milliseconds, letting other work run, until the connection's busy timeout has passed;
 * then the SQLITE_BUSY error is thrown, as the busy wait would have.
 */
export async function writeWithoutBlocking<T>(db: SqliteDatabase, write: () => T | Promise<T>): Promise<T> {
  // A closed connection has no lock to wait for: the write says what it does then.
  if (!db.open) return write();
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  const deadline = Date.now() + busyTimeout;
  for (let pause = 1; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
    let outcome: Promise<T>;
    db.pragma('busy_timeout = 0');
    try {
      // Synchronous work (better-sqlite3), also when wrapped in an async function: done by the time it returns.
      outcome = Promise.resolve(write());
    } catch (error) {
      outcome = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      if (db.open) db.pragma(`busy_timeout = ${busyTimeout}`);
    }
    try {
      return await outcome;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    await delay(pause);
  }
}
