import type { RateLimitStore } from './rate-limit-store.ts';
import { SqliteRateLimitStore } from './sqlite-rate-limit-store.ts';

export interface RateLimitStoreOptions {
  readonly dataDir: string;
  readonly redisUrl?: string | undefined;
  readonly redisNamespace?: string | undefined;
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
}

/**
 * Redis when REDIS_URL is set (where Mastodon keeps them), else MongoDB when MONGODB_URL is set, else
 * `<DATA_DIR>/rate-limits.sqlite`; each driver is loaded only when chosen.
 */
export async function openRateLimitStore(options: RateLimitStoreOptions): Promise<RateLimitStore> {
  if (options.redisUrl) {
    const { RedisRateLimitStore } = await import('./redis-rate-limit-store.ts');
    return RedisRateLimitStore.connect(options.redisUrl, options.redisNamespace);
  }
  if (options.mongodbUrl) {
    const { MongoRateLimitStore } = await import('./mongo-rate-limit-store.ts');
    return MongoRateLimitStore.connect(options.mongodbUrl, options.mongoDatabase);
  }
  return SqliteRateLimitStore.inDataDir(options.dataDir);
}
