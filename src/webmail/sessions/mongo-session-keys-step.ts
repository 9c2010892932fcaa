import { MongoServerError, type Db } from 'mongodb';
import type { MongoStep } from '../../shared/mongo-migrations.ts';
import { isSessionKey, sessionKey } from './session-key.ts';

const DUPLICATE_KEY = 11000;

interface OldSession {
  _id: string;
  authSecret?: string | null;
  [field: string]: unknown;
}

/**
 * Schema step of the webmail's MongoDB collections: session ids and auth secrets kept only as their
 * SHA-256 (session-key.ts). A document's `_id` cannot change, so each session stored under its id is
 * inserted again under the hash and then removed; compose IDs are pointed at the hash. Safe to run twice,
 * or by two processes at once (mongo-migrations.ts): a hash is 64 hex digits, which no session id is, so
 * what is done already is skipped, and an insert that meets the hashed copy is one done already.
 */
export const sessionKeysStep: MongoStep = {
  version: 2,
  description: 'session ids and auth secrets stored as their SHA-256 only; the sessions already stored hashed, so nobody is logged out',
  up: async (db: Db) => {
    const sessions = db.collection<OldSession>('webmail_sessions');
    for await (const doc of sessions.find({})) {
      if (isSessionKey(doc._id)) continue;
      const { _id: id, authSecret, ...rest } = doc;
      const authSecretHash = typeof authSecret === 'string' ? sessionKey(authSecret) : null;
      try {
        await sessions.insertOne({ ...rest, _id: sessionKey(id), authSecretHash });
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      }
      await sessions.deleteOne({ _id: id });
    }
    const compose = db.collection<{ _id: string; sessionId: string }>('webmail_compose');
    for await (const doc of compose.find({}, { projection: { _id: 1, sessionId: 1 } })) {
      if (!isSessionKey(doc.sessionId)) await compose.updateOne({ _id: doc._id, sessionId: doc.sessionId }, { $set: { sessionId: sessionKey(doc.sessionId) } });
    }
  },
};
