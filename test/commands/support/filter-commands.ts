import type { FilterCommand } from '../../../src/commands/filter/commands.ts';
import { filterDecider } from '../../../src/commands/filter/decider.ts';
import type { FilterState } from '../../../src/commands/filter/filter-state.ts';
import { handleCommand, type CommandOutcome } from '../../../src/commands/handle-command.ts';
import type { StreamStateCache } from '../../../src/commands/stream-state-cache.ts';
import type { EventStore } from '../../../src/events/event-store.ts';
import { FILTER_EVENT_VERSIONS, readFilterEvent } from '../../../src/events/filter-event-versions.ts';
import { filterStream, type FilterEvent } from '../../../src/events/filter-events.ts';

export const NOW = '2026-11-22T10:00:00.000Z';
export const OWNER = '7';

export const createFilter = (filterId: string, title = 't'): FilterCommand => ({
  type: 'CreateFilter',
  data: { filterId, accountId: OWNER, now: NOW, settings: { title, context: ['home'], action: 'warn', expiresAt: null }, keywords: [] },
});

export const addKeyword = (filterId: string, id: string, keyword: string): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId: OWNER, now: NOW, addKeywords: [{ id, keyword, wholeWord: true }] },
});

export const rename = (filterId: string, title: string): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId: OWNER, now: NOW, settings: { title } },
});

/** The command handler as the API runs it (default retries), with test metadata. */
export function runCommand(
  store: EventStore,
  command: FilterCommand,
  readEvent = readFilterEvent,
  states?: StreamStateCache<FilterState>,
): Promise<CommandOutcome<FilterState, FilterEvent>> {
  return handleCommand(store, filterDecider, filterStream(command.data.filterId), command, {
    readEvent,
    ...(states ? { states } : {}),
    metadata: (commitIndex, commitSize, event) => ({
      accountId: OWNER,
      requestId: 'test',
      apiVersion: 'cli',
      tokenId: null,
      commitIndex,
      commitSize,
      schemaVersion: FILTER_EVENT_VERSIONS[event.type],
    }),
  });
}
