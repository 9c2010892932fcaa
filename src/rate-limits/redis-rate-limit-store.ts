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

  static async connect(url: string, namespace?: string): Promise<RedisRateLimitStore> {
    const client = createClient({ url, disableOfflineQueue: true, commandOptions: { timeout: COMMAND_TIMEOUT_MS }, socket: { connectTimeout: 5000 } });
    client.on('error', () => {
      // Reported to the request that meets it (StoreUnavailableError); the client reconnects by itself.
    });
    try {
      await client.connect();
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw new StoreUnavailableError(`cannot reach Redis for rate limits: ${(error as Error).message}`);
    }
    return new RedisRateLimitStore(client, namespace ? `${namespace}:` : '');
  }

  async increment(key: string, expiresAtMs: number): Promise<number> {
    const full = `${this.prefix}rack::attack:${key}`;
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
