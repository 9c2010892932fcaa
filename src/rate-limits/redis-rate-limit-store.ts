import { createClient } from 'redis';
import { StoreUnavailableError } from '../shared/store-unavailable.ts';
import type { RateLimitStore } from './rate-limit-store.ts';

const COMMAND_TIMEOUT_MS = 2000;

/** Counters in Redis, as Mastodon keeps rack-attack's: INCR and PEXPIREAT in one transaction. */
export class RedisRateLimitStore implements RateLimitStore {
  private constructor(
    private readonly client: ReturnType<typeof createClient>,
    private readonly prefix: string,
  ) {}

  /**
   * Starts connecting and returns at once, as the Redis announcer does: the service starts and serves
   * while Redis is away (the counters then fail open, see rate-limit-middleware.ts) and the client keeps
   * reconnecting.
   */
  static async connect(url: string, namespace?: string): Promise<RedisRateLimitStore> {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: COMMAND_TIMEOUT_MS },
      socket: { connectTimeout: 5000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000) },
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

  async increment(key: string, expiresAtMs: number): Promise<number> {
    const full = `${this.prefix}rack::attack:${key}`;
    if (!this.client.isReady) throw new StoreUnavailableError('Redis for rate limits is not connected');
    try {
      const [count] = await this.client.multi().incr(full).pExpireAt(full, expiresAtMs).exec();
      return Number(count);
    } catch (error) {
      throw new StoreUnavailableError(`Redis rate-limit counter failed: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.client.isOpen) this.client.destroy();
  }
}
