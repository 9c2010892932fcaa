import { createClient } from 'redis';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { redactUrl } from '../shared/redact.ts';
import { FILTERS_CHANGED, type Notifier } from './notifier.ts';
import { NotifierUnavailableError } from './nats-notifier.ts';

export interface RedisTimelineOptions {
  /** Mastodon's REDIS_NAMESPACE: channels are then `<namespace>:timeline:<account_id>`. */
  readonly namespace?: string;
  readonly logger?: Logger;
  /** Called for each announcement Redis did not take (a metric). */
  readonly onFailure?: (error: unknown) => void;
}

/** How long a PUBLISH may take before it counts as failed, so a stuck Redis cannot hold the projector. */
const PUBLISH_TIMEOUT_MS = 2000;

/**
 * Mastodon's own channels in Redis, where its streaming server listens: `timeline:<account_id>` (the
 * user stream, forwarded to the account's clients) and `timeline:system:<account_id>` (which makes the
 * streaming server drop its cached filters), both with `{"event":"filters_changed"}`, as
 * CustomFilter#invalidate_cache! publishes them after commit.
 *
 * An extra channel beside NATS: a failure is logged and counted here and never reaches the projector.
 * While Redis is unreachable, publishes fail at once (no offline queue) and the client reconnects.
 */
export class RedisTimelineNotifier implements Notifier {
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly onFailure: (error: unknown) => void;

  private constructor(
    private readonly client: ReturnType<typeof createClient>,
    options: RedisTimelineOptions,
  ) {
    this.prefix = options.namespace ? `${options.namespace}:` : '';
    this.logger = options.logger ?? silentLogger;
    this.onFailure = options.onFailure ?? (() => {});
  }

  /** Connects, or fails at once when Redis cannot be reached now (as the NATS notifier does). */
  static async connect(url: string, options: RedisTimelineOptions = {}): Promise<RedisTimelineNotifier> {
    let connected = false;
    const client = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: PUBLISH_TIMEOUT_MS },
      socket: { connectTimeout: 5000, reconnectStrategy: (retries, cause) => (connected ? Math.min(50 * 2 ** retries, 2000) : cause) },
    });
    const logger = options.logger ?? silentLogger;
    client.on('error', (error: Error) => {
      if (connected) logger.warn({ err: error }, 'redis connection error');
    });
    try {
      await client.connect();
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw new NotifierUnavailableError(`cannot reach Redis at ${redactUrl(url)}: ${(error as Error).message}`);
    }
    connected = true;
    return new RedisTimelineNotifier(client, options);
  }

  channels(accountId: string): string[] {
    return [`${this.prefix}timeline:${accountId}`, `${this.prefix}timeline:system:${accountId}`];
  }

  async filtersChanged(accountId: string): Promise<void> {
    try {
      await Promise.all(this.channels(accountId).map((channel) => this.client.publish(channel, FILTERS_CHANGED)));
    } catch (error) {
      this.onFailure(error);
      this.logger.warn({ err: error, accountId }, 'could not publish filters_changed to Redis');
    }
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
  }
}
