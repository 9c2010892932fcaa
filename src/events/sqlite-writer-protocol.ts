import { isSqliteUnavailable } from '../shared/sqlite-busy.ts';
import { EventStoreUnavailableError, type ExpectedRevision, type NewEvent } from './event-store.ts';

/**
 * The messages between the SQLite event store and its writer thread. Only structured-cloneable values
 * cross: event data and metadata travel as the JSON text they are stored as, errors as plain records.
 */

export interface EncodedEvent {
  /** Absent: the writer gives a fresh UUIDv7. */
  readonly id?: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

export interface EncodedAppend {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly EncodedEvent[];
  /** Another stream's events, stored in the same savepoint before these (EventStore.appendWith). */
  readonly alongside?: Omit<EncodedAppend, 'alongside'>;
}

/** Where an append's last event was stored. */
export interface StoredAt {
  readonly nextRevision: bigint;
  readonly position: bigint;
}

export type WriterRequest =
  | { readonly kind: 'append'; readonly id: number; readonly appends: readonly EncodedAppend[] }
  /** One small committed write, to learn whether the file takes writes again. */
  | { readonly kind: 'probe'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number };

/**
 * `unavailable`: the file cannot take writes now (busy, full, read-only, I/O error): retrying later may
 * work. `failed`: anything else, a fault of this append or of the program.
 */
export interface WriterFailure {
  readonly kind: 'unavailable' | 'failed';
  readonly message: string;
  readonly code: string | null;
}

export type AppendOutcome =
  /** `alongside`: where the append's `alongside` was stored; null when the append was a replay (none of it stored). */
  | ({ readonly ok: true; readonly alongside?: StoredAt | null } & StoredAt)
  /** `streamName`: the stream that conflicted, when it is the append's `alongside`. */
  | { readonly ok: false; readonly conflict: { readonly expected: ExpectedRevision; readonly actual: bigint | 'no_stream'; readonly streamName?: string } }
  | { readonly ok: false; readonly failure: WriterFailure };

export type WriterReply =
  | { readonly kind: 'appended'; readonly id: number; readonly outcomes: readonly AppendOutcome[] }
  | { readonly kind: 'failed'; readonly id: number; readonly failure: WriterFailure }
  | { readonly kind: 'probed'; readonly id: number; readonly failure: WriterFailure | null }
  | { readonly kind: 'closed'; readonly id: number };

/** Any thrown value as a record that can cross to the other thread. */
export function describeFailure(error: unknown): WriterFailure {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    kind: isSqliteUnavailable(error) ? 'unavailable' : 'failed',
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : null,
  };
}

/** An event as the text it is stored as; what JSON cannot hold is refused here, for this append alone. */
export function encode(event: NewEvent): EncodedEvent {
  const data = JSON.stringify(event.data);
  const metadata = JSON.stringify(event.metadata ?? {});
  if (typeof event.type !== 'string' || typeof data !== 'string') throw new TypeError('an event needs a type and JSON data');
  if (event.id !== undefined && typeof event.id !== 'string') throw new TypeError('an event id is a string');
  return { ...(event.id === undefined ? {} : { id: event.id }), type: event.type, data, metadata };
}

/** A failure of the writer thread as the port's errors: unavailability for the file, an Error otherwise. */
export function toError(failure: WriterFailure): Error {
  if (failure.kind === 'unavailable') return new EventStoreUnavailableError(`event store (SQLite): ${failure.message}`);
  return Object.assign(new Error(`event store (SQLite): ${failure.message}`), { code: failure.code });
}
