import { connect, type NatsConnection } from 'nats';
import { FILTERS_CHANGED, timelineSubject, type Notifier } from './notifier.ts';

export class NotifierUnavailableError extends Error {
  override readonly name = 'NotifierUnavailableError';
}

/** Publishes on core NATS; the client reconnects by itself and buffers while it does. */
export class NatsNotifier implements Notifier {
  private readonly encoder = new TextEncoder();

  private constructor(private readonly connection: NatsConnection) {}

  static async connect(url: string, name = 'content-filters'): Promise<NatsNotifier> {
    try {
      return new NatsNotifier(await connect({ servers: url, name, maxReconnectAttempts: -1 }));
    } catch (error) {
      throw new NotifierUnavailableError(`cannot reach NATS at ${url}: ${(error as Error).message}`);
    }
  }

  async filtersChanged(accountId: string): Promise<void> {
    try {
      this.connection.publish(timelineSubject(accountId), this.encoder.encode(FILTERS_CHANGED));
    } catch (error) {
      throw new NotifierUnavailableError(`NATS publish failed: ${(error as Error).message}`);
    }
  }

  /** Resolves once the server has every message published so far. */
  async flush(): Promise<void> {
    await this.connection.flush();
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}
