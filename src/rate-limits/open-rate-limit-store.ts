import type { RateLimitStore } from './rate-limit-store.ts';
import { SqliteRateLimitStore } from './sqlite-rate-limit-store.ts';

export interface RateLimitStoreOptions {
  readonly dataDir: string;
  readonly redisUrl?: string | undefined;
  readonly redisNamespace?: string | undefined;
}

/** Redis when REDIS_URL is set (where Mastodon keeps them), else `<DATA_DIR>/rate-limits.sqlite`. */
export async function openRateLimitStore(options: RateLimitStoreOptions): Promise<RateLimitStore> {
  if (!options.redisUrl) return SqliteRateLimitStore.inDataDir(options.dataDir);
  const { RedisRateLimitStore } = await import('./redis-rate-limit-store.ts');
  return RedisRateLimitStore.connect(options.redisUrl, options.redisNamespace);
}
