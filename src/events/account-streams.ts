import type { EventStore, RecordedEvent } from './event-store.ts';

/**
 * What an auditor's questions about one account need from an event store that can answer them without
 * reading the rest of the log: the account's streams, found through an index. Stores without such an
 * index (EventStoreDB) do not offer it, and the questions fall back to reading the whole log.
 */
export interface AccountStreams {
  /**
   * Every event of the filter streams the account owns (the account named by each stream's
   * FilterCreated event) and of the account's own stream `account-<id>` (account-events.ts), in global
   * position order; the cost grows with these events alone.
   */
  readAccountEvents(accountId: string): Promise<readonly RecordedEvent[]>;
}

export function hasAccountStreams(store: EventStore): store is EventStore & AccountStreams {
  return typeof (store as Partial<AccountStreams>).readAccountEvents === 'function';
}
