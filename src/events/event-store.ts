import { StoreUnavailableError, type UnavailableReason } from '../shared/store-unavailable.ts';
/**
 * The event-store port. Revisions are 0-based per stream (as in EventStoreDB); positions order the
 * global log and are compared as bigints. Adapters translate their driver's errors into these.
 */
export type ExpectedRevision = bigint | 'no_stream' | 'stream_exists' | 'any';

export interface NewEvent {
  /**
   * The event's id (a UUID), derived from the command that decided it: appending the same ids again
   * after the stream's expected revision writes nothing and answers as the first append did (EventStoreDB's
   * idempotent write). Absent: the store gives a fresh UUIDv7.
   */
  readonly id?: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

export interface RecordedEvent {
  readonly eventId: string;
  readonly streamName: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly recordedAt: string;
  /** Set when the stored bytes could not be decoded (data is then null): the reason, for parking it. */
  readonly undecodable?: string;
}

export interface AppendResult {
  /** Revision of the last event appended. */
  readonly nextRevision: bigint;
  /** Global position of the last event appended: the read models are caught up once they pass it. */
  readonly position: bigint;
}

/** Events for one stream with the revision they are judged at: the part of a joint append (`appendWith`) on another stream. */
export interface StreamAppend {
  readonly streamName: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

export interface JointAppendResult extends AppendResult {
  /**
   * Where the other stream's events were stored; null when the append was answered as a replay of an
   * earlier one (its event ids already stored after the expected revision), which stores none of them.
   */
  readonly alongside: AppendResult | null;
}

export interface ReadAllOptions {
  /** Exclusive: events after this position. `null` reads from the start. */
  readonly after: bigint | null;
  readonly limit: number;
  /** Cancels the read (a caller that stopped waiting); it then rejects. */
  readonly signal?: AbortSignal;
}

/**
 * A page of the log. `scannedTo`, when given, is the position up to which the store looked: no event of
 * the page's kind lies between the page's last event and it (a log shared with other streams), so a reader
 * may move its checkpoint there.
 */
export type ReadAllPage = readonly RecordedEvent[] & { readonly scannedTo?: bigint };

export interface ReadStreamOptions {
  /** Exclusive: only the events after this revision. Absent: from the stream's first event. */
  readonly after?: bigint;
}

export interface EventStore {
  appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Optional: `events` on `streamName` and `alongside`'s events on another stream in one transaction,
   * the other stream's first: both stored or neither, each at its expected revision (a conflict on
   * either is a ConcurrencyError naming that stream). A store that cannot (EventStoreDB appends to one
   * stream at a time) has no such method, and a rule spanning streams then appends twice.
   */
  appendWith?(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision, alongside: StreamAppend): Promise<JointAppendResult>;
  /** The stream's events in revision order; an empty array for a stream that does not exist. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<readonly RecordedEvent[]>;
  /**
   * Optional: the stream's last event (null for a stream that does not exist), read without the events
   * before it, for streams whose last event carries their state (the usage ledger, account-usage-events.ts).
   */
  readLastEvent?(streamName: string): Promise<RecordedEvent | null>;
  /** A page of the global log in position order. */
  readAll(options: ReadAllOptions): Promise<ReadAllPage>;
  /**
   * Calls `listener` whenever events may have been appended, by this process or another one sharing the
   * store. It is a hint to read again, not a delivery; returns a function that stops listening.
   */
  onAppend(listener: () => void): () => void;
  /**
   * Optional: why appends fail now (a full disk, a lock held elsewhere), or null when they work, judged
   * from the last append and, after a failure, a small probe write. For /health.
   */
  writeProblem?(): Promise<string | null>;
  close(): Promise<void>;
}

export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';

  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** What a 503 names, and what the projector tells its stores' unavailability by. */
export const EVENT_STORE = 'the event store';

/** The event store's StoreUnavailableError. */
export class EventStoreUnavailableError extends StoreUnavailableError {
  override readonly name = 'EventStoreUnavailableError';

  /** `access_denied`: the store answers but refuses this service's credentials, which no retry fixes. */
  constructor(message: string, reason: UnavailableReason = 'unreachable', options?: ErrorOptions) {
    super(message, { ...options, store: EVENT_STORE, reason });
  }
}

/**
 * The store refused an append as larger than it takes at once (EventStoreDB's MaxAppendSize); nothing was
 * written, and the same append will always be refused. The limits keep requests far below it.
 */
export class AppendTooLargeError extends Error {
  override readonly name = 'AppendTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`The change is too large to store: the event store takes at most ${maxBytes} bytes in one append`);
  }
}
