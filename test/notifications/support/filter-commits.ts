import type { NewEvent } from '../../../src/events/event-store.ts';
import { FILTER_EVENT_VERSIONS } from '../../../src/events/filter-event-versions.ts';
import type { FilterEvent } from '../../../src/events/filter-events.ts';
import { newId } from '../../../src/shared/ids.ts';
import { eventMetadata } from '../../support/event-metadata.ts';

/** One request's events as the command side appends them: a filter created with a keyword, as one commit. */
export function filterCommit(accountId: string, filterId: string): NewEvent[] {
  const now = new Date().toISOString();
  const events: FilterEvent[] = [
    { type: 'FilterCreated', data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now } },
    {
      type: 'KeywordsUpdated',
      data: { filterId, removed: [], changed: [], added: [{ id: newId(), keyword: 'k', wholeWord: true }], replacesAll: false, updatedAt: now },
    },
  ];
  return events.map((e, i) => {
    const metadata = eventMetadata({ accountId, commitIndex: i, commitSize: events.length, schemaVersion: FILTER_EVENT_VERSIONS[e.type] });
    return { type: e.type, data: e.data, metadata };
  });
}
