import type { IdempotencyStore } from './idempotency-store.ts';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.ts';

export interface IdempotencyStoreOptions {
  readonly dataDir: string;
  /** MONGODB_URL: when set, the records live in MongoDB, shared by every host. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
}

/** `<DATA_DIR>/idempotency.sqlite`, or MongoDB when MONGODB_URL is set (its driver loaded only then). */
export async function openIdempotencyStore(options: IdempotencyStoreOptions): Promise<IdempotencyStore> {
  if (!options.mongodbUrl) return SqliteIdempotencyStore.inDataDir(options.dataDir);
  const { connectMongo } = await import('../../shared/mongo-connection.ts');
  const { MongoIdempotencyStore, mongoIdempotencySchema } = await import('./mongo-idempotency-store.ts');
  const { client, db } = await connectMongo(options.mongodbUrl, 'idempotency keys', [mongoIdempotencySchema], options.mongoDatabase);
  return new MongoIdempotencyStore(db, () => client.close());
}
