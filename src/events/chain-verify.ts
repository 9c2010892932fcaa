import { chainHash, eventHash, GENESIS, legacyHash, RECORDED_HASH_VERSION, recordedEventHash, type ChainHead } from './event-chain.ts';
import { StreamHeads } from './stream-heads.ts';

/** An event as stored, with the hashes stored beside it (null where there are none). */
export interface ChainedEvent {
  readonly position: bigint;
  readonly stream: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  /** Null for an event stored before the chains (EventStoreDB only: SQLite's migration hashed them all). */
  readonly eventHash: string | null;
  /** The stream's previous hash as stored with the event (SQLite); null where it is not (EventStoreDB). */
  readonly previousHash: string | null;
  /** The log chain's link stored with the event; null on a store that seals the log instead (EventStoreDB). */
  readonly chainHash: string | null;
  /** SQLite: the event id and recorded time as stored, and `hash_version` (null: version 1, which leaves them out). */
  readonly eventId?: unknown;
  readonly recordedAt?: unknown;
  readonly hashVersion?: unknown;
}

/** What a store must give `verifyChains`: the log in position order, page by page, and look-ups. */
export interface ChainSource {
  /** Whether every event carries its log chain link (SQLite); otherwise the seals stand for them. */
  readonly logChain: boolean;
  pages(): AsyncIterable<readonly ChainedEvent[]>;
  /** The hash a stream's revision counts with (its content's for an event before the chains), and where it lies. */
  stored(stream: string, revision: bigint): Promise<{ readonly position: bigint; readonly eventHash: string } | null>;
  /** The log chain as sealed at points of the log, in position order (EventStoreDB's seals); empty for SQLite. */
  seals(): Promise<readonly ChainHead[]>;
}

export type VerifyOutcome =
  | { readonly ok: true; readonly events: number; readonly head: ChainHead | null; readonly sealedThrough: bigint | null }
  | { readonly ok: false; readonly events: number; readonly position: bigint | null; readonly reason: string };

class Broken extends Error {
  constructor(
    readonly position: bigint | null,
    readonly reason: string,
  ) {
    super(reason);
  }
}

interface Walk {
  events: number;
  chain: string;
  last: bigint | null;
  /** Heads still to pass: the seals, then the one given with --expect, in position order. */
  readonly anchors: { readonly head: ChainHead; readonly kind: 'seal' | 'expect' }[];
  /** Events stored without a hash are accepted up to the first seal, which covers them. */
  readonly legacyThrough: bigint | null;
}

/**
 * Checks every chain of the log in one pass, in position order, and stops at the first break. Memory is
 * bounded (StreamHeads): a stream's previous hash comes from the walk when it was met lately, else from
 * the store. The log chain is computed from the content and compared with every link stored (SQLite) or
 * every seal (EventStoreDB), and with `expect`, a head printed earlier: the log must pass through it,
 * however far it has grown since.
 */
export async function verifyChains(source: ChainSource, expect: ChainHead | null = null, start: ChainHead | null = null): Promise<VerifyOutcome> {
  const seals = await source.seals();
  const anchors: Walk['anchors'] = seals.map((head) => ({ head, kind: 'seal' }));
  if (expect) anchors.push({ head: expect, kind: 'expect' });
  anchors.sort((a, b) => (a.head.position < b.head.position ? -1 : a.head.position > b.head.position ? 1 : 0));
  // `start`: a walk over the log after that event (one thread of a split walk), from its stored link.
  const walk: Walk = { events: 0, chain: start?.hash ?? GENESIS, last: start?.position ?? null, anchors, legacyThrough: seals[0]?.position ?? null };
  // With the previous hash stored on every event (SQLite), the walk needs to remember only the streams
  // of the last few thousand events, to check their links on the way; a small Map stays fast.
  const heads = new StreamHeads(source.logChain ? 4096 : 100_000);
  try {
    for await (const page of source.pages()) {
      for (const event of page) {
        const known = knownPrevious(event, heads, source);
        heads.set(event.stream, { revision: event.revision, hash: check(event, known ?? (await previousHash(event, source)), source, walk) });
        walk.events += 1;
      }
    }
    const missed = walk.anchors[0];
    if (missed) {
      const ends = walk.last === null ? 'the log is empty' : `the log ends at position ${walk.last}`;
      throw new Broken(walk.last, `tail truncated: ${ends}, before ${NAMES[missed.kind]} position ${missed.head.position}`);
    }
  } catch (error) {
    if (error instanceof Broken) return { ok: false, events: walk.events, position: error.position, reason: error.reason };
    throw error;
  }
  const head = walk.last === null ? null : { position: walk.last, hash: walk.chain };
  return { ok: true, events: walk.events, head, sealedThrough: seals.at(-1)?.position ?? null };
}

/** Checks one event against its stream's previous hash; answers the hash it counts with. */
function check(event: ChainedEvent, previous: string, source: ChainSource, walk: Walk): string {
  const { position, stream, revision } = event;
  const at = `stream ${stream} revision ${revision}`;
  const legacy = event.eventHash === null && !source.logChain && walk.legacyThrough !== null && position <= walk.legacyThrough;
  if (!legacy && (event.eventHash === null || (source.logChain && event.chainHash === null))) {
    throw new Broken(position, `no hash stored (${at}): appended without the chain, or its hash was removed`);
  }
  const hashed = legacy ? legacyHash(event) : event.eventHash!;
  if (!legacy && contentHash(event, previous, at) !== hashed) {
    const what = recorded(event) ? 'the event id, stream, revision, type, data, metadata or recorded time' : 'the stream, revision, type, data or metadata';
    throw new Broken(position, `content changed: ${what} of ${at} differ from what was hashed when it was appended`);
  }
  const chain = chainHash(walk.chain, position, hashed);
  if (source.logChain && chain !== event.chainHash) throw new Broken(position, logBreak(walk.last, position));
  walk.chain = chain;
  walk.last = position;
  passAnchors(walk, position);
  return hashed;
}

const recorded = (event: ChainedEvent) => event.hashVersion === RECORDED_HASH_VERSION;

/** The event's hash by its version: with its id and recorded time (2), or without (1, stored as null). */
function contentHash(event: ChainedEvent, previous: string, at: string): string {
  if (event.hashVersion === undefined || event.hashVersion === null) return eventHash(event, previous);
  if (!recorded(event)) throw new Broken(event.position, `unknown hash version ${JSON.stringify(event.hashVersion)} (${at}): the column was changed`);
  // As text, as appended: a value stored as another type since is a change like any other.
  return recordedEventHash({ ...event, eventId: String(event.eventId), recordedAt: String(event.recordedAt) }, previous);
}

const NAMES = { seal: "a seal's", expect: "the expected head's" } as const;

/** Compares the chain with the seals and the expected head the walk reaches at this position. */
function passAnchors(walk: Walk, position: bigint): void {
  while (walk.anchors[0] && walk.anchors[0].head.position <= position) {
    const { head, kind } = walk.anchors.shift()!;
    if (head.position < position) throw new Broken(head.position, `event missing: no event at ${NAMES[kind]} position ${head.position}`);
    if (head.hash === walk.chain) continue;
    throw new Broken(
      position,
      kind === 'expect'
        ? 'history rewritten: the log chain here differs from the expected head'
        : 'order changed, event missing or content changed before it: the log chain here differs from the seal written then',
    );
  }
}

/**
 * The hash the event's stream had before it, when known without a look-up: revision 0, or a stream the
 * walk met lately. On SQLite a stream the walk no longer holds is taken at the previous hash stored with
 * the event: that column is part of the event hash, which the log chain checked here covers, so a
 * changed one breaks the log chain (docs/auditing.md). Null: ask the store.
 */
function knownPrevious(event: ChainedEvent, heads: StreamHeads, source: ChainSource): string | null {
  const stored = event.previousHash;
  const met = heads.get(event.stream);
  const previous = event.revision === 0n ? GENESIS : met?.revision === event.revision - 1n ? met.hash : null;
  if (previous !== null && stored !== null && stored !== previous) {
    throw new Broken(
      event.position,
      `order changed or event missing: stream ${event.stream} revision ${event.revision} links to another hash than its stream's previous event`,
    );
  }
  if (previous !== null) return previous;
  return met === undefined && source.logChain ? stored : null;
}

/** The stored hash of the event's predecessor in its stream, which the walk no longer holds. */
async function previousHash(event: ChainedEvent, source: ChainSource): Promise<string> {
  const { position, stream, revision } = event;
  const stored = await source.stored(stream, revision - 1n);
  if (stored === null) throw new Broken(position, `event missing: stream ${stream} has revision ${revision} but no revision ${revision - 1n}`);
  if (stored.position > position) {
    throw new Broken(
      position,
      `order changed: stream ${stream} revision ${revision} comes before its revision ${revision - 1n} (at position ${stored.position})`,
    );
  }
  // Earlier in the walk, so already checked (or it would have stopped there).
  return stored.eventHash;
}

function logBreak(last: bigint | null, position: bigint): string {
  const after = last === null ? 'at the start of the log' : `after position ${last}`;
  if (last !== null && position > last + 1n) {
    return `event missing: the log chain breaks ${after}, and no event is stored between positions ${last} and ${position}`;
  }
  return `order changed or event missing: the log chain breaks ${after} (the event here is intact, but not where it was appended)`;
}
