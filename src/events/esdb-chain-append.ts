import type { EventStoreDBClient } from '@eventstore/db-client';
import { eventHash, GENESIS } from './event-chain.ts';
import { effectiveHash, HASH_KEY, storedEvent } from './esdb-chain-link.ts';
import type { ExpectedRevision, NewEvent } from './event-store.ts';

/** Where an append joins its stream's chain: the exact revision it expects, and that event's hash. */
export interface ChainLink {
  readonly expected: ExpectedRevision;
  /** Revision of the stream's last event before the append; -1 for a new stream. */
  readonly after: bigint;
  readonly previous: string;
}

/**
 * The link an append extends. With an exact revision, that event is read (one event); with `any` or
 * `stream_exists` the stream's last event is, and the append then expects exactly it, so no other
 * writer's event can slip in between the hash and the append (the caller retries if one did).
 */
export async function chainLink(client: EventStoreDBClient, stream: string, expected: ExpectedRevision): Promise<ChainLink> {
  if (expected === 'no_stream') return { expected, after: -1n, previous: GENESIS };
  const found = await storedEvent(client, stream, typeof expected === 'bigint' ? expected : 'last');
  if (typeof expected === 'bigint') {
    // Absent or another revision: the server refuses the append for its expected revision anyway.
    return { expected, after: expected, previous: found?.revision === expected ? effectiveHash(found) : GENESIS };
  }
  if (!found) return { expected: expected === 'any' ? 'no_stream' : expected, after: -1n, previous: GENESIS };
  return { expected: found.revision, after: found.revision, previous: effectiveHash(found) };
}

/** The events with their hashes as the last key of their metadata (esdb-chain-link.ts). */
export function chainedEvents(stream: string, events: readonly NewEvent[], link: ChainLink): NewEvent[] {
  let previous = link.previous;
  return events.map((event, i) => {
    const metadata = event.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata) || HASH_KEY in metadata) {
      throw new TypeError(`event metadata must be an object without a ${HASH_KEY} key (the chain keeps its hash there)`);
    }
    const data = JSON.stringify(event.data);
    if (typeof data !== 'string') throw new TypeError('an event needs JSON data');
    const content = { stream, revision: link.after + 1n + BigInt(i), type: event.type, data, metadata: JSON.stringify(metadata) };
    previous = eventHash(content, previous);
    return { ...event, metadata: { ...metadata, [HASH_KEY]: previous } };
  });
}
