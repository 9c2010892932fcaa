import type { Msg, NatsConnection, Subscription } from 'nats';
import type { AccountMatchers } from '../matching/account-matchers.ts';
import { recordMatch } from '../metrics/operator-metrics.ts';
import { BadMatchRequest, checkedMatchRequest } from '../matching/match-request.ts';
import { isId } from '../shared/ids.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import type { NatsSettings } from './nats-connection-options.ts';
import { natsLink, type NatsLink } from './nats-connection.ts';

/** Requests for account 123 go to `filters.match.123` (NATS_MATCH_SUBJECT sets the part before the id). */
export const DEFAULT_MATCH_SUBJECT = 'filters.match';
/** Every API process joins this queue group, so each request is answered by exactly one of them. */
export const MATCH_QUEUE_GROUP = 'content-filters-match';

/**
 * Answers filter-matching requests over NATS request-reply: `{"statuses": [...], "context"?}` on
 * `filters.match.<account_id>`, replied to with `{"results": {...}}` or `{"error": "..."}`. Every
 * responder joins one queue group, so NATS hands each request to one of the API processes.
 */
export class NatsMatchResponder {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private subscription: Subscription | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly prefix: string;

  private constructor(
    private readonly link: NatsLink,
    private readonly matchers: AccountMatchers,
    private readonly logger: Logger,
    private readonly subject: string,
  ) {
    this.prefix = `${subject}.`;
  }

  /**
   * Subscribes once NATS is reached: at once when it answers now (requests sent after start() reach the
   * responder then), later otherwise, so the service starts without NATS. nats.js renews the
   * subscription on every reconnect by itself.
   */
  static async start(
    settings: NatsSettings | string,
    matchers: AccountMatchers,
    logger: Logger = silentLogger,
    subject = DEFAULT_MATCH_SUBJECT,
  ): Promise<NatsMatchResponder> {
    const link = natsLink(settings, { name: 'content-filters-match', logger: logger.child({ component: 'nats-match' }) });
    const responder = new NatsMatchResponder(link, matchers, logger, subject);
    link.onConnected((connection) => responder.subscribe(connection));
    await link.firstAttempt;
    // The subscription is registered with the server once this returns: requests sent after start() reach it.
    await link.connection?.flush().catch(() => {});
    return responder;
  }

  private subscribe(connection: NatsConnection): void {
    if (this.subscription) return;
    this.subscription = connection.subscribe(`${this.subject}.*`, {
      queue: MATCH_QUEUE_GROUP,
      callback: (error, msg) => {
        if (error) this.logger.warn({ err: error }, 'filter match subscription error');
        else this.track(this.answer(msg));
      },
    });
  }

  private track(answering: Promise<void>): void {
    this.inFlight.add(answering);
    void answering.finally(() => this.inFlight.delete(answering));
  }

  private async answer(msg: Msg): Promise<void> {
    if (!msg.reply) return;
    let reply: unknown;
    const started = process.hrtime.bigint();
    let statuses = 0;
    try {
      const accountId = this.accountOf(msg.subject);
      const request = checkedMatchRequest(this.parse(msg.data));
      statuses = request.statuses.length;
      reply = await this.matchers.match(accountId, request);
      recordMatch('nats', 'ok', statuses, started);
    } catch (error) {
      recordMatch('nats', error instanceof BadMatchRequest ? 'bad_request' : 'error', statuses, started);
      if (error instanceof BadMatchRequest) {
        reply = { error: error.message };
      } else {
        this.logger.error({ err: error, subject: msg.subject }, 'filter match failed');
        reply = { error: 'Internal error' };
      }
    }
    try {
      msg.respond(this.encoder.encode(JSON.stringify(reply)));
    } catch (error) {
      this.logger.warn({ err: error, subject: msg.subject }, 'could not send a filter match reply');
    }
  }

  private accountOf(subject: string): string {
    const accountId = subject.slice(this.prefix.length);
    if (!isId(accountId)) throw new BadMatchRequest('the subject must end in an account id (digits)');
    return accountId;
  }

  private parse(data: Uint8Array): unknown {
    try {
      return JSON.parse(this.decoder.decode(data));
    } catch {
      throw new BadMatchRequest('the request is not JSON');
    }
  }

  /** Stops taking requests and lets the ones in flight finish. */
  async close(): Promise<void> {
    if (this.subscription && this.link.state() === 'connected') await this.subscription.drain().catch(() => {});
    await Promise.all(this.inFlight);
    await this.link.close();
  }
}
