import { createClient } from 'redis';
import { redisReconnectStrategy } from '../shared/redis-reconnect.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { redactUrl } from '../shared/redact.ts';
import { FILTERS_CHANGED, NotifierUnavailableError, type Announcement, type Notifier, type NotifierState, type PublishOutcome } from './notifier.ts';

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
 * A transport of its own beside NATS, with its own announcer and checkpoint: `announce` resolves once
 * Redis answered both PUBLISHes and rejects otherwise, so an outage delays announcements and loses none.
 * The payload stays exactly Mastodon's (its streaming server reads `event` only); a subscriber that wants
 * to order or deduplicate has no header here, and refetching on each message is always right.
 * While Redis is unreachable, publishes fail at once (no offline queue) and the client reconnects.
 */
export class RedisTimelineNotifier implements Notifier {
  readonly channel = 'redis';
  private readonly prefix: string;
  private readonly onFailure: (error: unknown) => void;

  private constructor(
    private readonly client: ReturnType<typeof createClient>,
    options: RedisTimelineOptions,
  ) {
    this.prefix = options.namespace ? `${options.namespace}:` : '';
    this.onFailure = options.onFailure ?? (() => {});
  }

  /**
   * Starts connecting and returns at once: a service starts and serves while Redis is away, and its
   * announcements wait in the log until the client has reached it.
   */
  static connect(url: string, options: RedisTimelineOptions = {}): RedisTimelineNotifier {
    const logger = options.logger ?? silentLogger;
    let told = false;
    const client = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: PUBLISH_TIMEOUT_MS },
      socket: { connectTimeout: 5000, reconnectStrategy: redisReconnectStrategy },
    });
    client.on('error', (error: Error) => {
      if (told) return;
      told = true;
      logger.warn({ event: 'redis_unreachable', err: error, url: redactUrl(url) }, 'Redis unreachable: announcements to it wait in the log');
    });
    client.on('ready', () => {
      if (told) logger.info({ event: 'redis_reached' }, 'Redis reached');
      told = false;
    });
    const notifier = new RedisTimelineNotifier(client, options);
    client.connect().catch((error: unknown) => logger.warn({ err: error }, 'Redis connection given up'));
    return notifier;
  }

  channels(accountId: string): string[] {
    return [`${this.prefix}timeline:${accountId}`, `${this.prefix}timeline:system:${accountId}`];
  }

  async announce({ accountId }: Announcement): Promise<PublishOutcome> {
    if (!this.client.isReady) throw new NotifierUnavailableError('Redis is not connected');
    try {
      await Promise.all(this.channels(accountId).map((channel) => this.client.publish(channel, FILTERS_CHANGED)));
    } catch (error) {
      this.onFailure(error);
      throw new NotifierUnavailableError(`Redis PUBLISH failed: ${(error as Error).message}`, { cause: error });
    }
    return 'published';
  }

  state(): NotifierState {
    return this.client.isReady ? 'connected' : 'reconnecting';
  }

  async close(): Promise<void> {
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }
}
