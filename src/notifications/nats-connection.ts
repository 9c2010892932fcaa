import { connect, Events, type ConnectionOptions, type NatsConnection } from 'nats';
import { ChangeSignal } from '../shared/change-signal.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { describeNats, natsConnectionOptions, type NatsSettings } from './nats-connection-options.ts';
import type { NotifierState } from './notifier.ts';

export interface NatsConnectionOptions {
  /** The connection name the NATS server shows. */
  readonly name: string;
  readonly logger?: Logger;
  /** Pause between reconnect attempts, and between first attempts while NATS was never reached (2 s). */
  readonly reconnectTimeWaitMs?: number;
}

/**
 * A NATS connection that a process can start without: the first dial is tried at once and then again
 * until it succeeds, while the process serves; once connected, nats.js reconnects by itself for ever.
 * Every NATS connection of the service is made by `natsLink`, so connection settings live here only.
 */
export class NatsLink {
  private current: NatsConnection | null = null;
  private connected = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly reached = new ChangeSignal<[NatsConnection]>();
  private readonly logger: Logger;
  /** Settles after the first dial, whether it reached NATS or not. */
  readonly firstAttempt: Promise<void>;
  /** Servers and login, built once: a settings error (an unreadable .creds file) stops the start here. */
  private readonly connectOptions: ConnectionOptions;
  /** For log lines: the servers without a credential. */
  private readonly where: string;

  constructor(
    settings: NatsSettings | string,
    private readonly options: NatsConnectionOptions,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.connectOptions = natsConnectionOptions(settings);
    this.where = describeNats(settings);
    this.firstAttempt = this.dial(true);
  }

  /** The connection once NATS was reached (it may be reconnecting now); null before. */
  get connection(): NatsConnection | null {
    return this.current;
  }

  state(): NotifierState {
    if (this.closed || this.current?.isClosed()) return 'closed';
    if (!this.current) return 'connecting';
    return this.connected ? 'connected' : 'reconnecting';
  }

  /** Calls `listener` with the connection each time NATS is reached: first connect and every reconnect. */
  onConnected(listener: (connection: NatsConnection) => void): () => void {
    const stop = this.reached.listen(listener);
    if (this.current && this.connected) listener(this.current);
    return stop;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const connection = this.current;
    if (!connection || connection.isClosed()) return;
    // Draining a connection that is away would wait for it to come back.
    if (this.connected) await connection.drain().catch(() => connection.close());
    else await connection.close();
  }

  private async dial(first: boolean): Promise<void> {
    if (this.closed) return;
    const wait = this.options.reconnectTimeWaitMs ?? 2000;
    try {
      const connection = await connect({ ...this.connectOptions, name: this.options.name, maxReconnectAttempts: -1, reconnectTimeWait: wait });
      if (this.closed) {
        await connection.close();
        return;
      }
      this.current = connection;
      this.connected = true;
      this.logger.info({ event: 'nats_connected', server: connection.getServer() }, first ? 'NATS connected' : 'NATS reached: connected');
      void this.watch(connection);
      this.tell(connection);
    } catch (error) {
      if (first) this.logger.warn({ event: 'nats_unreachable', err: error, url: this.where }, 'NATS unreachable at start: serving without it, trying again');
      this.timer = setTimeout(() => void this.dial(false), wait);
      this.timer.unref();
    }
  }

  private async watch(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      const server = typeof status.data === 'string' ? status.data : JSON.stringify(status.data);
      if (status.type === Events.Disconnect) {
        this.connected = false;
        this.logger.warn({ event: 'nats_disconnected', server }, 'NATS disconnected: announcements wait in the log until it is back');
      } else if (status.type === Events.Reconnect) {
        this.connected = true;
        this.logger.info({ event: 'nats_reconnected', server }, 'NATS reconnected');
        this.tell(connection);
      }
    }
  }

  private tell(connection: NatsConnection): void {
    this.reached.notify(connection);
  }
}

/** Every NATS connection the service makes (announcements, filter matching) starts here. */
export function natsLink(settings: NatsSettings | string, options: NatsConnectionOptions): NatsLink {
  return new NatsLink(settings, options);
}
