import { BACKWARDS, END, FORWARDS, StreamNotFoundError, type EventStoreDBClient, type ResolvedEvent } from '@eventstore/db-client';
import type { ChainedEvent } from './chain-verify.ts';
import { GENESIS, legacyHash } from './event-chain.ts';
import { packPosition } from './esdb-position.ts';
import type { ExpectedRevision } from './event-store.ts';

/**
 * The per-stream chain on EventStoreDB (docs/auditing.md). An event's hash lives in its own metadata, as
 * its last key `eventHash`, and is over the metadata without that key: the text the client sent is
 * JSON.stringify of the metadata the service gave (`{...metadata, eventHash}`), so taking the key off the
 * parsed metadata and serialising it again gives the hashed text back, byte for byte. Data likewise
 * (JSON.stringify, as the client sends it). Events stored before the chains carry no hash; they count by
 * their content alone, with an empty previous hash (`legacyHash`), and are covered by the first seal.
 */
export const HASH_KEY = 'eventHash';

type EsdbRecorded = NonNullable<ResolvedEvent['event']>;

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : (JSON.stringify(value ?? {}) ?? '');

/** The metadata the service wrote, without its hash, and the hash (null when there is none). */
export function splitMetadata(metadata: unknown): { readonly rest: unknown; readonly hash: string | null } {
  if (metadata === null || typeof metadata !== 'object' || metadata instanceof Uint8Array || Array.isArray(metadata) || !(HASH_KEY in metadata)) {
    return { rest: metadata ?? {}, hash: null };
  }
  const { [HASH_KEY]: hash, ...rest } = metadata as Record<string, unknown>;
  return { rest, hash: typeof hash === 'string' ? hash : null };
}

/** A stored event as the chains see it: the texts the hash was taken over, and its stored hash. */
export function chainedFromEsdb(event: EsdbRecorded, position = event.position ? packPosition(event.position) : -1n): ChainedEvent {
  const { rest, hash } = splitMetadata(event.metadata);
  return {
    position,
    stream: event.streamId,
    revision: event.revision,
    type: event.type,
    data: text(event.data),
    metadata: text(rest),
    previousHash: null,
    eventHash: hash,
    chainHash: null,
  };
}

/** The hash an event counts with in its stream's chain and in the seals. */
export const effectiveHash = (event: ChainedEvent): string => event.eventHash ?? legacyHash(event);

/**
 * The stream's event at `revision` (or its last one), for the hash the next append links to; null for a
 * stream that does not exist. One event read, forwards from the revision or backwards from the end.
 */
export async function storedEvent(client: EventStoreDBClient, stream: string, revision: bigint | 'last'): Promise<ChainedEvent | null> {
  const read =
    revision === 'last'
      ? client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true })
      : client.readStream(stream, { direction: FORWARDS, fromRevision: revision, maxCount: 1, requiresLeader: true });
  let found: ChainedEvent | null = null;
  try {
    // Read to its end (one event), not left early: a read left open keeps the client from closing.
    for await (const resolved of read) if (resolved.event) found = chainedFromEsdb(resolved.event);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
  return found;
}

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

/** The previous hash for revision 0 of a new stream. */
export { GENESIS };
