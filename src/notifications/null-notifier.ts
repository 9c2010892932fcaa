import type { Announcement, Notifier, PublishOutcome } from './notifier.ts';

/**
 * The embedded default without NATS_URL: no subscriber outside this process can be reached and none
 * inside listens, so nothing is announced (no announcer runs for it). Clients still see every change on
 * their next read.
 */
export class NullNotifier implements Notifier {
  readonly channel = 'none';

  async announce(_announcement: Announcement): Promise<PublishOutcome> {
    return 'published';
  }

  async close(): Promise<void> {}
}
