import type { MongoSchema } from '../../shared/mongo-migrations.ts';
import { sessionKeysStep } from './mongo-session-keys-step.ts';

/**
 * The webmail's session collections in MongoDB (sessions, compose IDs, login counters), step by step.
 * Add a step for every change; never edit one that has shipped.
 */
export const mongoWebmailSchema: MongoSchema = {
  name: 'webmail-sessions',
  steps: [
    {
      version: 1,
      description: 'sessions by expiry, compose IDs by session, login failure windows by account (their _id)',
      up: async (db) => {
        await db.collection('webmail_sessions').createIndex({ expiresAt: 1 }, { name: 'by_expiry' });
        await db.collection('webmail_compose').createIndex({ sessionId: 1 }, { name: 'by_session' });
      },
    },
    sessionKeysStep,
  ],
};
