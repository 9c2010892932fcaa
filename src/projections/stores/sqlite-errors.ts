import { translateSqliteError as translated } from '../../shared/sqlite-busy.ts';
import { readModelsUnavailable } from './read-store.ts';

/** better-sqlite3's errors for the read models: unavailability becomes ReadStoreUnavailableError (sqlite-busy.ts), the rest passes. */
export function translateSqliteError(error: unknown): unknown {
  return translated(error, 'read models', readModelsUnavailable);
}

export function sqliteCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw translateSqliteError(error);
  }
}
