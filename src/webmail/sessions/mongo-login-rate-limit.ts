import type { Collection, Db } from 'mongodb';
import { isDuplicateKey, isKey, mongoCall } from '../../shared/mongo-connection.ts';
import { isLockedBy, type LoginRateLimit, type RateLimitPolicy } from './login-rate-limit.ts';

interface FailureDoc {
  _id: string;
  start: number;
  failures: number;
}

const STORE = 'login rate limit';

/**
 * The counters in the `login_failures` collection, one document per login name. Counting is a guarded
 * update (add to a young window, else restart an old one, else insert): each step is one atomic document
 * write, and a lost insert race goes round again, so concurrent processes lose no failure.
 */
export class MongoLoginRateLimit implements LoginRateLimit {
  private readonly windows: Collection<FailureDoc>;
  private readonly now: () => number;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    db: Db,
    private readonly policy: RateLimitPolicy,
  ) {
    this.windows = db.collection('login_failures');
    this.now = policy.now ?? Date.now;
  }

  isLocked(accountId: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId)) return false;
      const found = await this.windows.findOne({ _id: accountId });
      return isLockedBy(found, this.policy, this.now());
    });
  }

  recordFailure(accountId: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId)) return;
      const now = this.now();
      const edge = now - this.policy.windowMillis;
      // Unknown names count too, so anyone can add documents: windows that are over go, at most once a window.
      if (now - this.lastSweep >= this.policy.windowMillis) {
        this.lastSweep = now;
        await this.windows.deleteMany({ start: { $lte: edge } });
      }
      for (;;) {
        const counted = await this.windows.updateOne({ _id: accountId, start: { $gt: edge } }, { $inc: { failures: 1 } });
        if (counted.matchedCount === 1) return;
        const restarted = await this.windows.updateOne({ _id: accountId, start: { $lte: edge } }, { $set: { start: now, failures: 1 } });
        if (restarted.matchedCount === 1) return;
        try {
          await this.windows.insertOne({ _id: accountId, start: now, failures: 1 });
          return;
        } catch (error) {
          // Another process inserted the window first: count into it.
          if (!isDuplicateKey(error)) throw error;
        }
      }
    });
  }

  forget(accountId: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(accountId)) await this.windows.deleteOne({ _id: accountId });
    });
  }

  /** The connection belongs to the webmail stores that opened it. */
  async close(): Promise<void> {}
}
