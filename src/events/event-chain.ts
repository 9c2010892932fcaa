import { hash } from 'node:crypto';

/**
 * The tamper-evidence chains of the event log (docs/auditing.md, "Tamper evidence"). Two SHA-256 links,
 * in lower-case hex, over the exact text an event is stored as:
 *
 *   event hash = SHA-256("cf-event-v1\n" + f(stream) + f(revision) + f(type) + f(data) + f(metadata) + f(previous))
 *   chain hash = SHA-256("cf-chain-v1\n" + f(previous chain hash) + f(position) + f(event hash))
 *
 * where f(text) = <its UTF-8 length in bytes, decimal> ":" <text>, so no two field lists hash the same
 * text; `previous` is the event hash of the stream's previous revision (GENESIS for revision 0), and the
 * previous chain hash that of the event before it in the log (GENESIS for the first).
 */
export const GENESIS = '0'.repeat(64);

const field = (text: string): string => `${Buffer.byteLength(text)}:${text}`;
/** For text that is ASCII by construction (digits, hex digits): its length is its byte length. */
const ascii = (text: string): string => `${text.length}:${text}`;

export interface HashedContent {
  readonly stream: string;
  readonly revision: bigint | number;
  readonly type: string;
  /** The stored text, exactly as stored. */
  readonly data: string;
  readonly metadata: string;
}

/** The link of an event in its stream's chain. */
export function eventHash(content: HashedContent, previous: string): string {
  const { stream, revision, type, data, metadata } = content;
  const text = `cf-event-v1\n${field(stream)}${ascii(String(revision))}${field(type)}${field(data)}${field(metadata)}${field(previous)}`;
  return hash('sha256', text, 'hex');
}

/** An event with what the auditor's queries read beside its content: its id and when it was recorded. */
export interface RecordedContent extends HashedContent {
  readonly eventId: string;
  /** The stored text, exactly as stored (ISO-8601). */
  readonly recordedAt: string;
}

/**
 * The event hash of SQLite appends from schema version 4 on (`hash_version` 2): version 1 left the event
 * id and the recorded time out, so `filters --as-of` could be fooled by a changed time. Events stored
 * before keep their version 1 hashes (hash_version NULL), so heads recorded earlier still verify:
 *
 *   event hash v2 = SHA-256("cf-event-v2\n" + f(event id) + f(stream) + f(revision) + f(type) + f(data)
 *                           + f(metadata) + f(recorded at) + f(previous))
 */
export function recordedEventHash(content: RecordedContent, previous: string): string {
  const { eventId, stream, revision, type, data, metadata, recordedAt } = content;
  const fields = `${field(eventId)}${field(stream)}${ascii(String(revision))}${field(type)}${field(data)}${field(metadata)}${field(recordedAt)}${field(previous)}`;
  return hash('sha256', `cf-event-v2\n${fields}`, 'hex');
}

/** The hash version SQLite appends write (`hash_version`); NULL in the column is version 1. */
export const RECORDED_HASH_VERSION = 2;

/** What an event stored before the chains (EventStoreDB) counts with: its content, linked to nothing. */
export const legacyHash = (content: HashedContent): string => eventHash(content, '');

/** The link of an event in the log's chain, in commit (position) order. */
export function chainHash(previous: string, position: bigint | number, event: string): string {
  return hash('sha256', `cf-chain-v1\n${field(previous)}${ascii(String(position))}${field(event)}`, 'hex');
}

/** A point of the log's chain as the CLI prints it and `verify --expect` takes it: `<position>:<hash>`. */
export interface ChainHead {
  readonly position: bigint;
  readonly hash: string;
}

export const formatHead = (head: ChainHead): string => `${head.position}:${head.hash}`;

/** Null when the text is not `<position>:<64 hex digits>`. */
export function parseHead(text: string): ChainHead | null {
  const match = /^(\d{1,40}):([0-9a-f]{64})$/.exec(text.trim().toLowerCase());
  return match ? { position: BigInt(match[1]!), hash: match[2]! } : null;
}
