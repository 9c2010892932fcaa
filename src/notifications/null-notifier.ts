import type { Notifier } from './notifier.ts';

/**
 * The embedded default without NATS_URL: no subscriber outside this process can be reached and none
 * inside listens, so announcements go nowhere. Clients still see every change on their next read.
 */
export class NullNotifier implements Notifier {
  async filtersChanged(): Promise<void> {}

  async close(): Promise<void> {}
}
