import type { AccountStore } from './account-store.ts';
import { SqliteAccountStore } from './sqlite-account-store.ts';

export interface AccountStoreOptions {
  readonly dataDir: string;
  /** MONGODB_URL: when set, accounts and tokens live in MongoDB, shared by every host. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
}

/** `<DATA_DIR>/accounts.sqlite`, or MongoDB when MONGODB_URL is set (its driver loaded only then). */
export async function openAccountStore(options: AccountStoreOptions): Promise<AccountStore> {
  if (!options.mongodbUrl) return SqliteAccountStore.inDataDir(options.dataDir);
  const { connectMongo } = await import('../shared/mongo-connection.ts');
  const { mongoAccountsSchema } = await import('./mongo-accounts-schema.ts');
  const { MongoAccountStore } = await import('./mongo-account-store.ts');
  const { client, db } = await connectMongo(options.mongodbUrl, 'accounts', [mongoAccountsSchema], options.mongoDatabase);
  return new MongoAccountStore(db, () => client.close());
}
