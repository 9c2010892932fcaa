import { hasAccountStreams, type AccountStreams } from '../events/account-streams.ts';
import type { AppendResult, EventStore, ExpectedRevision, JointAppendResult, NewEvent, StreamAppend } from '../events/event-store.ts';
import { eventsAppended } from './metrics.ts';

/**
 * The EventStore port with every successful append counted, whichever adapter is behind it; an account
 * index the store has is kept (the usage ledger's first count and the auditor's queries read through it).
 */
export function countedEventStore(store: EventStore): EventStore & Partial<AccountStreams> {
  return {
    async appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
      const result = await store.appendToStream(streamName, events, expected);
      for (const event of events) eventsAppended.inc({ type: event.type });
      return result;
    },
    ...(store.appendWith
      ? {
          async appendWith(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision, alongside: StreamAppend): Promise<JointAppendResult> {
            const result = await store.appendWith!(streamName, events, expected, alongside);
            for (const event of result.alongside ? [...alongside.events, ...events] : events) eventsAppended.inc({ type: event.type });
            return result;
          },
        }
      : {}),
    readStream: (streamName, options) => store.readStream(streamName, options),
    ...(store.readLastEvent ? { readLastEvent: (streamName: string) => store.readLastEvent!(streamName) } : {}),
    readAll: (options) => store.readAll(options),
    onAppend: (listener) => store.onAppend(listener),
    ...(store.writeProblem ? { writeProblem: () => store.writeProblem!() } : {}),
    ...(hasAccountStreams(store) ? { readAccountEvents: (accountId: string) => store.readAccountEvents(accountId) } : {}),
    close: () => store.close(),
  };
}
