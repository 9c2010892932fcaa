import type { Collection, MongoClient } from 'mongodb';
import { connectMongo, mongoCall } from '../shared/mongo-connection.ts';
import type { MongoSchema } from '../shared/mongo-migrations.ts';
import { isStoreUnavailable, StoreUnavailableError } from '../shared/store-unavailable.ts';
import type { CounterIncrement, RateLimitStore } from './rate-limit-store.ts';

interface CounterDocument {
  _id: string;
  count: number;
  expiresAt: Date;
}

const STORE = 'rate limits';

const schema: MongoSchema = {
  name: 'rate-limits',
  steps: [
    {
      version: 1,
      description: 'counters expire with their window (TTL index)',
      up: async (db) => {
        await db.collection('rate_limits').createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
      },
    },
  ],
};

/** Counters in MongoDB: one upsert with $inc per key of a batch, so every host shares them. */
export class MongoRateLimitStore implements RateLimitStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly counters: Collection<CounterDocument>,
  ) {}

  static async connect(url: string, database?: string): Promise<MongoRateLimitStore> {
    const { client, db } = await connectMongo(url, STORE, [schema], database);
    // The one store not held to MONGODB_WRITE_CONCERN: a counter is bumped on every API request, and one
    // that a failover rolls back only lets a client a few requests more in the window, which is no lie to
    // anyone; waiting for a majority would add a replication round trip to every request. Local reads,
    // as a majority read would not see this w:1 write yet.
    const counters = db.collection<CounterDocument>('rate_limits', { writeConcern: { w: 1 }, readConcern: { level: 'local' } });
    return new MongoRateLimitStore(client, counters);
  }

  /** One upsert per key, in parallel: each is atomic on its own, which is all a count needs. */
  async incrementAll(increments: readonly CounterIncrement[]): Promise<readonly number[]> {
    try {
      return await Promise.all(
        increments.map(async ({ key, by, expiresAtMs }) => {
          const counter = await mongoCall(STORE, () =>
            this.counters.findOneAndUpdate(
              { _id: key },
              { $inc: { count: by }, $setOnInsert: { expiresAt: new Date(expiresAtMs) } },
              { upsert: true, returnDocument: 'after' },
            ),
          );
          return counter!.count;
        }),
      );
    } catch (error) {
      if (isStoreUnavailable(error)) throw new StoreUnavailableError(error.message, { cause: error, store: 'the rate-limit counters' });
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
