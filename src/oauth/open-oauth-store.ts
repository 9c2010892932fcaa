import type { OAuthStore } from './oauth-store.ts';
import { SqliteOAuthStore } from './sqlite-oauth-store.ts';

export interface OAuthStoreOptions {
  readonly dataDir: string;
  /** MONGODB_URL: when set, apps, codes and app tokens live in MongoDB, shared by every host. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
}

/** `<DATA_DIR>/oauth.sqlite`, or MongoDB when MONGODB_URL is set (its driver loaded only then). */
export async function openOAuthStore(options: OAuthStoreOptions): Promise<OAuthStore> {
  if (!options.mongodbUrl) return SqliteOAuthStore.inDataDir(options.dataDir);
  const { connectMongo } = await import('../shared/mongo-connection.ts');
  const { MongoOAuthStore, mongoOAuthSchema } = await import('./mongo-oauth-store.ts');
  const { client, db } = await connectMongo(options.mongodbUrl, 'OAuth apps', [mongoOAuthSchema], options.mongoDatabase);
  return new MongoOAuthStore(db, () => client.close());
}
