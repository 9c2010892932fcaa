import { createClient } from 'redis';
import { redisReconnectStrategy } from '../shared/redis-reconnect.ts';
import { StoreUnavailableError } from '../shared/store-unavailable.ts';
import type { CounterIncrement, RateLimitStore } from './rate-limit-store.ts';

const COMMAND_TIMEOUT_MS = 2000;
const SHOWN_AS = 'the rate-limit counters';

/** Counters in Redis, as Mastodon keeps rack-attack's: INCRBY and PEXPIREAT, a batch in one transaction. */
export class RedisRateLimitStore implements RateLimitStore {
  private constructor(
    private readonly client: ReturnType<typeof createClient>,
    private readonly prefix: string,
  ) {}

  /**
   * Starts connecting and returns at once, as the Redis announcer does: the service starts and serves
   * while Redis is away (counted requests are then answered 503, see batched-counter.ts) and the client
   * keeps reconnecting.
   */
  static async connect(url: string, namespace?: string): Promise<RedisRateLimitStore> {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: COMMAND_TIMEOUT_MS },
      socket: { connectTimeout: 5000, reconnectStrategy: redisReconnectStrategy },
    });
    // The first attempt's outcome, either way: a reachable Redis counts from the first request on.
    const firstAttempt = new Promise<void>((resolve) => {
      client.once('ready', resolve);
      client.on('error', () => {
        // Reported to the request that meets it (StoreUnavailableError); the client reconnects by itself.
        resolve();
      });
    });
    client.connect().catch(() => {
      // Same: every increment meanwhile fails at once (no offline queue).
    });
    await firstAttempt;
    return new RedisRateLimitStore(client, namespace ? `${namespace}:` : '');
  }

  /** A frozen server never answers exec(): BatchedCounter's deadline answers the requests, not this. */
  async incrementAll(increments: readonly CounterIncrement[]): Promise<readonly number[]> {
    if (!this.client.isReady) throw new StoreUnavailableError('Redis for rate limits is not connected', { store: SHOWN_AS });
    const multi = this.client.multi();
    for (const { key, by, expiresAtMs } of increments) {
      const full = `${this.prefix}rack::attack:${key}`;
      multi.incrBy(full, by).pExpireAt(full, expiresAtMs);
    }
    try {
      const replies = await multi.exec();
      return increments.map((_, i) => Number(replies[2 * i]));
    } catch (error) {
      throw new StoreUnavailableError(`Redis rate-limit counter failed: ${(error as Error).message}`, { store: SHOWN_AS });
    }
  }

  async close(): Promise<void> {
    if (this.client.isOpen) this.client.destroy();
  }
}
