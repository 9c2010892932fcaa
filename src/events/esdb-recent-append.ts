import { BACKWARDS, END, StreamNotFoundError, type EventStoreDBClient, type ResolvedEvent } from '@eventstore/db-client';
import { packPosition } from './esdb-position.ts';
import type { AppendResult, NewEvent } from './event-store.ts';

/** How many of a stream's last events a loose append looks through for its own ids. */
export const RECENT_EVENTS = 64;

type EsdbRecorded = NonNullable<ResolvedEvent['event']>;

/**
 * An append with `any` or `stream_exists` is deduplicated by the server through the ids of recently
 * committed events (IndexCommitter.CheckCommit looks them up in `_committedEvents`, a bounded cache:
 * EventStore/EventStore src/EventStore.Core/Services/Storage/ReaderIndex/IndexCommitter.cs). The chain
 * makes such an append exact (chainLink, esdb-chain-link.ts), which that check does not cover, so the adapter
 * keeps the promise itself, within the stream's last RECENT_EVENTS events: the same ids found there, in
 * order, are answered as their first append was. Null: not stored yet, or stored too long ago to tell.
 */
export async function recentAppend(client: EventStoreDBClient, stream: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
  const ids = events.map((event) => event.id);
  if (ids.some((id) => id === undefined)) return null;
  const recent: EsdbRecorded[] = [];
  try {
    for await (const resolved of client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: RECENT_EVENTS, requiresLeader: true })) {
      if (resolved.event) recent.push(resolved.event);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
  recent.reverse();
  const start = recent.findIndex((event) => event.id === ids[0]);
  if (start < 0) return null;
  const run = recent.slice(start, start + ids.length);
  if (run.length !== ids.length || run.some((event, i) => event.id !== ids[i])) return null;
  const last = run.at(-1)!;
  return { nextRevision: last.revision, position: last.position ? packPosition(last.position) : -1n };
}
