import { ReadStoreUnavailableError } from './read-store.ts';

/** SQLite result codes that say the file could not be used right now, not that the data was refused. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL|NOTADB|CORRUPT)/;

/** Translates better-sqlite3's errors: unavailability becomes ReadStoreUnavailableError, the rest passes. */
export function translateSqliteError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE.test(code))
    return new ReadStoreUnavailableError(`read models (SQLite): ${(error as Error).message}`, { cause: error });
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
    return new ReadStoreUnavailableError('read models (SQLite): the connection is closed', { cause: error });
  }
  return error;
}

export function sqliteCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw translateSqliteError(error);
  }
}
