import type { EventMetadata } from '../../src/events/filter-events.ts';

/**
 * The metadata the service writes on a filter event (src/http/run-filter-command.ts), for fixtures:
 * request `r` through API v2 without a token, alone in its commit, schema version 1; `fields` say
 * what a test needs otherwise. The keys keep the service's order, so stored texts read alike.
 */
export function eventMetadata({ accountId, ...fields }: Partial<EventMetadata> & Pick<EventMetadata, 'accountId'>): EventMetadata {
  return { accountId, requestId: 'r', apiVersion: 'v2', tokenId: null, commitIndex: 0, commitSize: 1, schemaVersion: 1, ...fields };
}
