import { connect, Events, type NatsConnection } from 'nats';
import { describeNats, natsConnectionOptions, type NatsSettings } from './nats-connection-options.ts';
import type { Logger } from '../shared/logger.ts';
import { FILTERS_CHANGED, timelineSubject, type Notifier, type NotifierState } from './notifier.ts';

export class NotifierUnavailableError extends Error {
  override readonly name = 'NotifierUnavailableError';
}

export interface NatsNotifierOptions {
  /** The connection name the NATS server shows. */
  readonly name?: string;
  readonly logger?: Logger;
  /** Announcements that could not go out at once (NATS away, or sent but not confirmed before it went). */
  readonly onDelayed?: (count: number) => void;
  /** Announcements still waiting when the notifier closed: nobody will hear them. */
  readonly onLost?: (count: number) => void;
  /** Pause between reconnect attempts (the client's default is 2 s). */
  readonly reconnectTimeWaitMs?: number;
}

/**
 * Publishes on core NATS and keeps what an outage would lose. nats.js drops whatever it buffered when it
 * dials again, and a message written to a socket that then breaks is gone too. So every announcement
 * stays "unconfirmed" until a flush (PING/PONG) proves the server has it; on a disconnect the unconfirmed
 * and everything announced meanwhile wait here, one per account (`filters_changed` only says "fetch
 * again"), and are published on reconnect. While the process lives an announcement is delivered at
 * least once; a process that stops during an outage loses what waits (counted by onLost).
 */
export class NatsNotifier implements Notifier {
  private readonly encoder = new TextEncoder();
  private connected = true;
  private readonly waitingAccounts = new Set<string>();
  private readonly unconfirmed = new Map<string, number>();
  private sent = 0;
  private confirming = false;

  /** Over a connection the caller made and hands over (`connect` makes its own); `close` ends it. */
  constructor(
    private readonly connection: NatsConnection,
    private readonly options: NatsNotifierOptions = {},
  ) {
    void this.watchConnection();
  }

  static async connect(settings: NatsSettings | string, options: NatsNotifierOptions = {}): Promise<NatsNotifier> {
    const base = natsConnectionOptions(settings);
    try {
      const connection = await connect({
        ...base,
        name: options.name ?? 'content-filters',
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.reconnectTimeWaitMs ?? 2000,
      });
      return new NatsNotifier(connection, options);
    } catch (error) {
      throw new NotifierUnavailableError(`cannot reach NATS at ${describeNats(settings)}: ${(error as Error).message}`);
    }
  }

  async filtersChanged(accountId: string): Promise<void> {
    if (this.connection.isClosed()) throw new NotifierUnavailableError('NATS connection is closed');
    if (!this.connected) {
      this.waitingAccounts.add(accountId);
      this.options.onDelayed?.(1);
      return;
    }
    this.send(accountId);
  }

  state(): NotifierState {
    if (this.connection.isClosed()) return 'closed';
    return this.connected ? 'connected' : 'reconnecting';
  }

  waiting(): number {
    return this.waitingAccounts.size;
  }

  async close(): Promise<void> {
    if (this.waitingAccounts.size > 0) {
      this.options.onLost?.(this.waitingAccounts.size);
      this.options.logger?.error({ lost: this.waitingAccounts.size }, 'NATS still unreachable at shutdown: waiting filters_changed announcements are lost');
      this.waitingAccounts.clear();
    }
    if (this.connection.isClosed()) return;
    // Draining a connection that is away would wait for it to come back.
    if (this.connected) await this.connection.drain();
    else await this.connection.close();
  }

  private send(accountId: string): void {
    try {
      this.connection.publish(timelineSubject(accountId), this.encoder.encode(FILTERS_CHANGED));
    } catch (error) {
      throw new NotifierUnavailableError(`NATS publish failed: ${(error as Error).message}`);
    }
    this.sent += 1;
    this.unconfirmed.set(accountId, this.sent);
    this.confirm();
  }

  /** One flush at a time; each confirms what was sent before it started. A failed one leaves them to the disconnect. */
  private confirm(): void {
    if (this.confirming) return;
    this.confirming = true;
    const upTo = this.sent;
    this.connection.flush().then(
      () => {
        for (const [accountId, sequence] of this.unconfirmed) if (sequence <= upTo) this.unconfirmed.delete(accountId);
        this.confirming = false;
        if (this.unconfirmed.size > 0 && this.connected) this.confirm();
      },
      () => {
        this.confirming = false;
      },
    );
  }

  private async watchConnection(): Promise<void> {
    for await (const status of this.connection.status()) {
      // For these two events the client's data is the server's address.
      const server = typeof status.data === 'string' ? status.data : JSON.stringify(status.data);
      if (status.type === Events.Disconnect) this.disconnected(server);
      else if (status.type === Events.Reconnect) this.reconnected(server);
    }
  }

  private disconnected(server: string): void {
    this.connected = false;
    const unsure = [...this.unconfirmed.keys()].filter((accountId) => !this.waitingAccounts.has(accountId));
    for (const accountId of unsure) this.waitingAccounts.add(accountId);
    this.unconfirmed.clear();
    if (unsure.length > 0) this.options.onDelayed?.(unsure.length);
    this.options.logger?.warn(
      { event: 'nats_disconnected', server, unconfirmed: unsure.length },
      'NATS disconnected: filters_changed announcements wait here until it is back',
    );
  }

  private reconnected(server: string): void {
    this.connected = true;
    const delayed = [...this.waitingAccounts];
    this.waitingAccounts.clear();
    this.options.logger?.info({ event: 'nats_reconnected', server, delayed: delayed.length }, 'NATS reconnected: publishing the announcements that waited');
    for (const accountId of delayed) {
      try {
        this.send(accountId);
      } catch (error) {
        this.waitingAccounts.add(accountId);
        this.options.logger?.warn({ err: error, accountId }, 'could not publish a waiting announcement');
      }
    }
  }
}
