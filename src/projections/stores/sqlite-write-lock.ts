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
export async function writeWithoutBlocking<T>(db: SqliteDatabase, write: () => T): Promise<T> {
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  const deadline = Date.now() + busyTimeout;
  for (let pause = 1; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
    db.pragma('busy_timeout = 0');
    try {
      return write();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    } finally {
      if (db.open) db.pragma(`busy_timeout = ${busyTimeout}`);
    }
    await delay(pause);
  }
}
