import type { Collection, MongoClient } from 'mongodb';
import { connectMongo, mongoCall } from '../shared/mongo-connection.ts';
import type { MongoSchema } from '../shared/mongo-migrations.ts';
import type { RateLimitStore } from './rate-limit-store.ts';

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

/** Counters in MongoDB: one upsert with $inc per counted request, so every host shares them. */
export class MongoRateLimitStore implements RateLimitStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly counters: Collection<CounterDocument>,
  ) {}

  static async connect(url: string, database?: string): Promise<MongoRateLimitStore> {
    const { client, db } = await connectMongo(url, STORE, [schema], database);
    return new MongoRateLimitStore(client, db.collection<CounterDocument>('rate_limits'));
  }

  async increment(key: string, expiresAtMs: number): Promise<number> {
    const counter = await mongoCall(STORE, () =>
      this.counters.findOneAndUpdate(
        { _id: key },
        { $inc: { count: 1 }, $setOnInsert: { expiresAt: new Date(expiresAtMs) } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    return counter!.count;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
