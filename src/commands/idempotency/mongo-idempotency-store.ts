import type { Collection, Db } from 'mongodb';
import { isDuplicateKey, mongoCall } from '../../shared/mongo-connection.ts';
import type { MongoSchema } from '../../shared/mongo-migrations.ts';
import { IDEMPOTENCY_KEY_TTL_MS, recordIdOf, type Claim, type IdempotencyKey, type IdempotencyStore, type KeyedCommand } from './idempotency-store.ts';

interface KeyDoc {
  _id: string;
  commandId: string;
  startedAtMs: number;
  command: string;
  expiresAtMs: number;
  /** For the server's TTL monitor, which removes a record some time after it expired. */
  expiresAt: Date;
}

const STORE = 'idempotency keys';
const COLLECTION = 'idempotency_keys';

/** The `idempotency_keys` collection, step by step. Add a step for every change; never edit one that has shipped. */
export const mongoIdempotencySchema: MongoSchema = {
  name: 'idempotency',
  steps: [
    {
      version: 1,
      description: 'Idempotency-Key records removed by the TTL monitor once expired',
      up: async (db) => {
        await db.collection(COLLECTION).createIndex({ expiresAt: 1 }, { name: 'by_expiry', expireAfterSeconds: 0 });
      },
    },
  ],
};

const keyedOf = (doc: KeyDoc): KeyedCommand => ({ commandId: doc.commandId, startedAtMs: doc.startedAtMs, command: JSON.parse(doc.command) as unknown });

/**
 * The records in MongoDB, one document per key. A claim is an insert (the unique _id decides a race);
 * a record that expired but was not removed yet (the TTL monitor runs once a minute) is replaced by a
 * guarded update, so only one of two racing claims replaces it.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  private readonly keys: Collection<KeyDoc>;

  constructor(
    db: Db,
    private readonly closeConnection: () => Promise<void>,
  ) {
    this.keys = db.collection(COLLECTION);
  }

  claim(key: IdempotencyKey, proposed: KeyedCommand, nowMs: number): Promise<Claim> {
    return mongoCall(STORE, async () => {
      const expiresAtMs = nowMs + IDEMPOTENCY_KEY_TTL_MS;
      const doc: KeyDoc = { _id: recordIdOf(key), ...proposed, command: JSON.stringify(proposed.command), expiresAtMs, expiresAt: new Date(expiresAtMs) };
      // Two rounds at most: a lost race to replace an expired record finds the winner's record live.
      for (let round = 0; round < 2; round += 1) {
        try {
          await this.keys.insertOne(doc);
          return { keyed: proposed, repeated: false };
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
        const { _id, ...fields } = doc;
        const replaced = await this.keys.updateOne({ _id, expiresAtMs: { $lte: nowMs } }, { $set: fields });
        if (replaced.matchedCount === 1) return { keyed: proposed, repeated: false };
        const found = await this.keys.findOne({ _id });
        if (found) return { keyed: keyedOf(found), repeated: true };
      }
      throw new Error(`${STORE}: the record for a key kept disappearing while it was claimed`);
    });
  }

  async close(): Promise<void> {
    await this.closeConnection();
  }
}
