import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { migrateMongo, type MongoSchema } from './mongo-migrations.ts';
import { isMongoUnavailable } from './mongo-unavailable.ts';
import { sharedStoreUnavailable, type UnavailableOf } from './store-unavailable.ts';

const DEFAULT_DATABASE = 'content_filters';
export const DUPLICATE_KEY = 11000;

/** One adapter's connection; `close` ends it. */
export interface MongoConnection {
  readonly client: MongoClient;
  readonly db: Db;
}

/**
 * Connects to the database named in the URL (else `content_filters`, or `database` when given) and
 * brings each schema up to date, so every adapter of a shared store starts on the schema it knows.
 */
export async function connectMongo(url: string, store: string, schemas: readonly MongoSchema[], database?: string): Promise<MongoConnection> {
  return mongoCall(store, async () => {
    const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
    const named = client.options.dbName;
    const db = client.db(database ?? (named && named !== 'test' ? named : DEFAULT_DATABASE));
    try {
      for (const schema of schemas) await migrateMongo(db, schema);
    } catch (error) {
      await client.close();
      throw error;
    }
    return { client, db };
  });
}

/**
 * MongoDB's one translator: the driver's ways of saying the server cannot serve now (mongo-unavailable.ts)
 * become the store's StoreUnavailableError, "<store> (MongoDB): ..." (a shared store's when not told); the
 * rest pass.
 */
export function translateDriverError(store: string, error: unknown, unavailable: UnavailableOf = sharedStoreUnavailable()): unknown {
  if (isMongoUnavailable(error) && error instanceof Error) return unavailable(`${store} (MongoDB): ${error.message}`, error);
  return error;
}

export async function mongoCall<T>(store: string, call: () => Promise<T>, unavailable?: UnavailableOf): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateDriverError(store, error, unavailable);
  }
}

export const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === DUPLICATE_KEY;

/**
 * What a query may compare a key with: only a string. A caller's object (`{ $ne: null }`) or array never
 * reaches a filter as an operator; it matches nothing instead.
 */
export const isKey = (value: unknown): value is string => typeof value === 'string';

/** `value` as a literal, case-insensitive regular expression (for substring and prefix searches). */
export const literalPattern = (value: string): string => value.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
