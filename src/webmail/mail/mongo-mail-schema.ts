import type { MongoSchema } from '../../shared/mongo-migrations.ts';

export const MAIL_UID_COUNTER = 'mailbox_uid';

/** The mail collections in MongoDB, step by step. Add a step for every change; never edit one that has shipped. */
export const mongoMailSchema: MongoSchema = {
  name: 'mail',
  steps: [
    {
      version: 1,
      description: 'mailbox entries by account and folder, correspondents unique per account, the uid counter',
      up: async (db) => {
        await db.collection('mailbox_entries').createIndex({ accountId: 1, folder: 1, _id: -1 }, { name: 'by_folder' });
        await db.collection('correspondents').createIndex({ accountId: 1, address: 1 }, { name: 'by_account_address', unique: true });
        await db.collection<{ _id: string }>('mail_counters').updateOne({ _id: MAIL_UID_COUNTER }, { $setOnInsert: { value: 0 } }, { upsert: true });
      },
    },
  ],
};
