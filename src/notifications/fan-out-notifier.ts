import type { Notifier, NotifierState } from './notifier.ts';

/**
 * Announces on the primary channel (NATS, or the in-process bus) and on extra ones (Mastodon's Redis
 * channel) at once. Only the primary's failures reach the caller; extra channels handle their own.
 */
export class FanOutNotifier implements Notifier {
  constructor(
    readonly primary: Notifier,
    readonly extras: readonly Notifier[],
  ) {}

  async filtersChanged(accountId: string): Promise<void> {
    const extras = this.extras.map((extra) => extra.filtersChanged(accountId));
    try {
      await this.primary.filtersChanged(accountId);
    } finally {
      await Promise.all(extras);
    }
  }

  /** The primary's: health and metrics describe NATS (or the in-process bus). */
  state(): NotifierState {
    return this.primary.state?.() ?? 'off';
  }

  waiting(): number {
    return this.primary.waiting?.() ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), ...this.extras.map((extra) => extra.close())]);
  }
}
