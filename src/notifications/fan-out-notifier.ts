import type { Announcement, Notifier, NotifierState, PublishOutcome } from './notifier.ts';

/**
 * The primary transport (NATS, or the in-process bus) and extra ones (Mastodon's Redis channel), held
 * together. The announcer runs one loop with its own checkpoint per transport (`announcementChannels`),
 * so an outage of one never holds up another; `announce` here is for callers that want all at once.
 */
export class FanOutNotifier implements Notifier {
  readonly channel = 'fan-out';

  constructor(
    readonly primary: Notifier,
    readonly extras: readonly Notifier[],
  ) {}

  async announce(announcement: Announcement): Promise<PublishOutcome> {
    const outcomes = await Promise.all([this.primary, ...this.extras].map((notifier) => notifier.announce(announcement)));
    return outcomes[0]!;
  }

  /** The primary's: health and metrics describe NATS (or the in-process bus). */
  state(): NotifierState {
    return this.primary.state?.() ?? 'off';
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), ...this.extras.map((extra) => extra.close())]);
  }
}

/** The transports an announcer runs for, each with its own checkpoint; none when nobody can be told. */
export function announcementChannels(notifier: Notifier): readonly Notifier[] {
  const all = notifier instanceof FanOutNotifier ? [notifier.primary, ...notifier.extras] : [notifier];
  return all.filter((one) => one.channel !== 'none');
}
