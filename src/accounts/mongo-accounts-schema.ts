import type { MongoSchema } from '../shared/mongo-migrations.ts';

/** The accounts and tokens collections in MongoDB, step by step. Add a step for every change; never edit one that has shipped. */
export const mongoAccountsSchema: MongoSchema = {
  name: 'accounts',
  steps: [
    {
      version: 1,
      description: 'usernames unique without regard to case; tokens by account',
      up: async (db) => {
        await db.collection('accounts').createIndex({ usernameKey: 1 }, { name: 'by_username', unique: true });
        await db.collection('access_tokens').createIndex({ accountId: 1, createdAt: 1, _id: 1 }, { name: 'by_account' });
      },
    },
  ],
};
