import { setTimeout as pause } from 'node:timers/promises';

/**
 * What a connection used on the main thread waits for a lock inside SQLite. SQLite waits by sleeping the
 * calling thread, which on the main thread stalls every request of the process: so only a few
 * milliseconds there, and longer waits as `retryWhileBusy`'s asynchronous pauses, which do not.
 */
export const MAIN_THREAD_BUSY_TIMEOUT_MS = 5;

/** The longest a main-thread call keeps retrying a busy file before its error is let through. */
export const BUSY_RETRY_LIMIT_MS = 5000;

/** SQLite result codes that say the file cannot be used right now, not that the data was refused. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL|NOTADB|CORRUPT)/;

export function isSqliteUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Runs a synchronous SQLite call; while it fails with SQLITE_BUSY, tries again after a pause growing from
 * 1 ms to 100 ms, until `limitMs` has passed. `call` must leave nothing half done when it throws (one
 * statement, or one better-sqlite3 transaction, which rolls back).
 */
export async function retryWhileBusy<T>(call: () => T, limitMs = BUSY_RETRY_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let wait = 1;
  for (;;) {
    try {
      return call();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    await pause(wait);
    wait = Math.min(wait * 2, 100);
  }
}
