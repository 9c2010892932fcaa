import { asyncRetry, type AsyncRetryOptions } from './async-retry.ts';
import { sharedStoreUnavailable, type UnavailableOf } from './store-unavailable.ts';

/**
 * What a connection used on the main thread waits for a lock inside SQLite. SQLite waits by sleeping the
 * calling thread, which on the main thread stalls every request of the process: so only a few
 * milliseconds there, and longer waits as `retryWhileBusy`'s asynchronous pauses, which do not.
 */
export const MAIN_THREAD_BUSY_TIMEOUT_MS = 5;

/** The longest a main-thread call keeps retrying a busy file before its error is let through. */
export const BUSY_RETRY_LIMIT_MS = 5000;

/**
 * The retry limit of a store a request waits on before it is answered (rate-limit counters, OAuth,
 * Idempotency-Key records): a file another process keeps locked is a 503 within 100 ms, not a wait.
 */
export const REQUEST_BUSY_LIMIT_MS = 40;

/** SQLite result codes that say the file cannot be used right now, not that the data was refused. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL|NOTADB|CORRUPT)/;

export function isSqliteUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}

/**
 * SQLite's one translator: a file that cannot be used now, or a connection already closed (better-sqlite3
 * throws a TypeError then), becomes the store's StoreUnavailableError, "<label> (SQLite): ..."; any other
 * error passes as it is.
 */
export function translateSqliteError(error: unknown, label: string, unavailable: UnavailableOf): unknown {
  if (isSqliteUnavailable(error)) return unavailable(`${label} (SQLite): ${(error as Error).message}`, error);
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
    return unavailable(`${label} (SQLite): the connection is closed`, error);
  }
  return error;
}

/** SQLITE_BUSY and its extended codes: another connection holds the lock; trying again later may work. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * The one policy of every SQLite connection of the main thread: opened with `openSqlite(..., 'main-thread')`
 * (SQLite itself waits MAIN_THREAD_BUSY_TIMEOUT_MS at most), and each call run here: while it fails with
 * SQLITE_BUSY, tried again after a pause growing from 1 ms to `maxPauseMs` (100 ms; the read models' live
 * writes use a few, so a freed lock is taken at once), until `limitMs` has passed. `call` must be safe to
 * run again when it throws: one statement, one better-sqlite3 transaction (which rolls back), or steps
 * that are idempotent.
 */
export function retryWhileBusy<T>(call: () => T | Promise<T>, limitMs = BUSY_RETRY_LIMIT_MS, maxPauseMs = 100): Promise<T> {
  return asyncRetry(call, limitMs === BUSY_RETRY_LIMIT_MS && maxPauseMs === 100 ? EVERY_READ : busyPolicy(limitMs, maxPauseMs));
}

const busyPolicy = (limitMs: number, maxPauseMs: number): AsyncRetryOptions => ({
  backOff: { firstMs: 1, maxMs: maxPauseMs },
  shouldRetryError: (error, { elapsedMs }) => isBusy(error) && elapsedMs < limitMs,
});

/** Made once: every read of the main thread passes here, and building the policy per call cost 4-6 µs of 9 (a loop of 10^6 calls). */
const EVERY_READ = busyPolicy(BUSY_RETRY_LIMIT_MS, 100);

/** A call of a shared store (accounts, webmail) on a main-thread connection; an unusable file is StoreUnavailableError. */
export async function sharedStoreCall<T>(store: string, call: () => T | Promise<T>, limitMs = BUSY_RETRY_LIMIT_MS, shownAs?: string): Promise<T> {
  try {
    return await retryWhileBusy(call, limitMs);
  } catch (error) {
    throw translateSqliteError(error, store, sharedStoreUnavailable(shownAs));
  }
}

/** How a store's calls wait for a busy file: how long, and what a 503 calls the store (StoreUnavailableError). */
export interface BusyPolicy {
  readonly limitMs: number;
  readonly shownAs?: string;
}

type AsyncMethod = (...args: never[]) => Promise<unknown>;

/**
 * `store` with the named async methods run through `sharedStoreCall`; its other members are its own.
 * Each named method must be safe to run again after SQLITE_BUSY (see `retryWhileBusy`).
 */
export function retryingStore<T extends object, K extends keyof T>(store: T, name: string, methods: readonly K[], policy?: BusyPolicy): T {
  const wrapped = Object.create(store) as T;
  const limitMs = policy?.limitMs ?? BUSY_RETRY_LIMIT_MS;
  for (const key of methods) {
    const method = store[key] as AsyncMethod;
    Object.defineProperty(wrapped, key, { value: (...args: never[]) => sharedStoreCall(name, () => method.apply(store, args), limitMs, policy?.shownAs) });
  }
  return wrapped;
}
