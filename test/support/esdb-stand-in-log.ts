/**
 * The transaction log behind the EventStoreDB protocol STAND-IN (not a server): an in-memory $all with the
 * rules an EventStoreDB 24.10 server follows (sources: EventStore/EventStore at v24.10.0):
 * - every event of an append is written as its own committed prepare record at a growing byte offset, so
 *   its commit position equals its prepare position
 *   (src/EventStore.Core/Services/Storage/StorageWriterService.cs, WritePrepareWithRetry with
 *   PrepareFlags.IsCommitted; src/EventStore.Core/Services/Storage/StorageChaser.cs commits such a prepare
 *   at its own position);
 * - an append is answered with the last event's position (src/EventStore.Core/Messages/ClientMessage
 *   WriteEventsCompleted, sent by src/EventStore.Core/Services/RequestManager/Managers/WriteEvents.cs with
 *   the commit and prepare position of the last prepare);
 * - $all is ordered by (commit, prepare) and a read must start at a record boundary or the end
 *   (src/EventStore.Core/Services/Storage/ReaderIndex/AllReader.cs: ReadAllResult.InvalidPosition);
 * - an append with an exact expected revision or `no_stream` whose event ids were already written right
 *   after it is idempotent, found through the stream index: answered with the first write's result and
 *   nothing is written; ids that match only in part are a WrongExpectedVersion
 *   (src/EventStore.Core/Services/Storage/ReaderIndex/IndexWriter.cs 234-277, CheckCommit: Idempotent,
 *   CorruptedIdempotency); one with `any` or `stream_exists` is deduplicated only through the bounded cache
 *   of recently committed ids (IndexWriter.cs 203-231, esdb-stand-in-committed-ids.ts), so once an id has
 *   left it, or after a restart or leader change (`forgetCommittedIds`), the same append is written again;
 * - a tombstoned stream refuses appends and reads with StreamDeleted
 *   (src/EventStore.Core/Services/Transport/Grpc/Streams.Delete.cs, Streams.Tombstone).
 * Records take a plausible number of bytes, so positions are neither 0, 1, 2 nor one apart.
 */
import { CommittedIds } from './esdb-stand-in-committed-ids.ts';

export interface StoredEvent {
  readonly id: string;
  readonly stream: string;
  readonly revision: bigint;
  readonly commit: bigint;
  readonly prepare: bigint;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
  /** .NET ticks (100 ns) since the Unix epoch, as the server sends `created`. */
  readonly created: bigint;
}

export interface ProposedEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

export type Expected = { readonly kind: 'any' | 'no_stream' | 'stream_exists' } | { readonly kind: 'revision'; readonly revision: bigint };

export type AppendOutcome =
  | { readonly ok: true; readonly revision: bigint; readonly position: bigint }
  | { readonly ok: false; readonly reason: 'wrong_expected_version'; readonly current: bigint | null }
  | { readonly ok: false; readonly reason: 'stream_deleted' };

export interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Bytes a prepare record takes besides its payload (header, ids, type, timestamps). */
const RECORD_OVERHEAD = 97n;
/** The type of the record a hard delete writes (SystemEventTypes.StreamDeleted). */
export const TOMBSTONE_TYPE = '$streamDeleted';

export const atOrAfter = (event: StoredEvent, from: LogPosition) =>
  event.commit > from.commit || (event.commit === from.commit && event.prepare >= from.prepare);

export class StandInLog {
  readonly events: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly tombstoned = new Set<string>();
  /** IndexWriter._committedEvents: what `any` and `stream_exists` appends are deduplicated by. */
  readonly committedIds: CommittedIds;
  private readonly listeners = new Set<(appended: readonly StoredEvent[]) => void>();
  private offset = 0n;

  constructor(committedIdsBytes?: number) {
    this.committedIds = new CommittedIds(committedIdsBytes);
    // A real log never starts with this project's events: system records come first.
    this.append('$stand-in-epoch', { kind: 'no_stream' }, [
      {
        id: '00000000-0000-0000-0000-000000000001',
        type: '$epoch',
        contentType: 'application/json',
        data: Buffer.from('{}'),
        customMetadata: new Uint8Array(),
      },
    ]);
  }

  head(stream: string): bigint | null {
    return this.streams.get(stream)?.at(-1)?.revision ?? null;
  }

  /** The stream's events from `from` on; an index lookup, as the server's stream reads are. */
  stream(stream: string, from: bigint): readonly StoredEvent[] {
    const events = this.streams.get(stream) ?? [];
    const first = events[0]?.revision ?? 0n;
    return events.slice(Math.max(0, Number(from - first)));
  }

  isDeleted(stream: string): boolean {
    return this.tombstoned.has(stream);
  }

  /** Where the log ends: the position the next record will take. */
  get end(): bigint {
    return this.offset;
  }

  /** Index of the first record at or after `from`; null when `from` is inside a record (InvalidPosition). */
  indexAt(from: LogPosition): number | null {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (atOrAfter(this.events[middle]!, from)) high = middle;
      else low = middle + 1;
    }
    const found = this.events[low];
    if (from.commit !== from.prepare) return null;
    if (found ? found.prepare === from.prepare : from.prepare === this.offset) return low;
    return null;
  }

  append(stream: string, expected: Expected, proposed: readonly ProposedEvent[]): AppendOutcome {
    if (this.tombstoned.has(stream)) return { ok: false, reason: 'stream_deleted' };
    const current = this.head(stream);
    const repeated = this.idempotent(stream, expected, proposed);
    if (repeated) return repeated;
    const ok =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && current === expected.revision);
    if (!ok) return { ok: false, reason: 'wrong_expected_version', current };
    if (proposed.length === 0) return { ok: true, revision: current ?? -1n, position: this.offset };
    const appended = proposed.map((event) => this.write(stream, event));
    for (const listener of [...this.listeners]) listener(appended);
    const last = appended.at(-1)!;
    return { ok: true, revision: last.revision, position: last.prepare };
  }

  /** A hard delete: a tombstone record, after which the stream takes no appends and cannot be read. */
  tombstone(stream: string): void {
    const record = this.write(stream, {
      id: crypto.randomUUID(),
      type: TOMBSTONE_TYPE,
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      customMetadata: new Uint8Array(),
    });
    this.tombstoned.add(stream);
    for (const listener of [...this.listeners]) listener([record]);
  }

  /**
   * TEST-ONLY TAMPER HOOK: no server has it. Edits the stored records as someone with the server's files
   * could (test/cli/verify-esdb.spec.ts changes bytes, removes and swaps records), then rebuilds the
   * stream index from what is left, in revision order.
   */
  tamperForTest(edit: (records: StoredEvent[]) => void): void {
    edit(this.events);
    this.streams.clear();
    this.committedIds.clear();
    for (const record of this.events) {
      this.streams.set(record.stream, [...(this.streams.get(record.stream) ?? []), record]);
      this.committedIds.put(record.id, record.stream, record.revision);
    }
    for (const records of this.streams.values()) records.sort((a, b) => (a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0));
  }

  /** Calls `listener` with the events of every append from now on; returns a function that stops it. */
  watch(listener: (appended: readonly StoredEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private write(stream: string, event: ProposedEvent): StoredEvent {
    const events = this.streams.get(stream) ?? [];
    this.streams.set(stream, events);
    const at = this.offset;
    const stored: StoredEvent = {
      ...event,
      stream,
      revision: (events.at(-1)?.revision ?? -1n) + 1n,
      commit: at,
      prepare: at,
      created: BigInt(Date.now()) * 10_000n,
    };
    this.offset += RECORD_OVERHEAD + BigInt(stream.length + event.type.length + event.data.length + event.customMetadata.length);
    events.push(stored);
    this.events.push(stored);
    this.committedIds.put(stored.id, stream, stored.revision);
    return stored;
  }

  /** The first write's answer if this append repeats one already in the log (IndexWriter.CheckCommit), else null. */
  repeatOf(stream: string, expected: Expected, proposed: readonly ProposedEvent[]): AppendOutcome | null {
    return this.idempotent(stream, expected, proposed);
  }

  /** What a restart or a leader change does to the deduplication of `any` and `stream_exists` appends. */
  forgetCommittedIds(): void {
    this.committedIds.clear();
  }

  /**
   * IndexWriter.CheckCommit. `any`/`stream_exists` (203-231): every id looked up in the committed-ids
   * cache; the first missing means a new append (Ok), a later one CorruptedIdempotency. An exact revision or
   * `no_stream` below the stream's head (234-277): the ids must sit right after the expected revision in the
   * stream index. All in place: the first write's result; only some: WrongExpectedVersion.
   */
  private idempotent(stream: string, expected: Expected, proposed: readonly ProposedEvent[]): AppendOutcome | null {
    const events = this.streams.get(stream);
    if (!events || proposed.length === 0) return null;
    if (expected.kind === 'any' || expected.kind === 'stream_exists') {
      const found = proposed.map((event) => this.committedIds.get(event.id));
      if (found[0]?.stream !== stream) return null;
      if (found.some((entry) => entry?.stream !== stream)) return { ok: false, reason: 'wrong_expected_version', current: this.head(stream) };
      const last = events.find((e) => e.revision === found.at(-1)!.revision)!;
      return { ok: true, revision: last.revision, position: last.prepare };
    }
    const start = expected.kind === 'revision' ? Number(expected.revision + 1n) : 0;
    if (events[start]?.id !== proposed[0]!.id) return null;
    const written = events.slice(start, start + proposed.length);
    if (written.length === proposed.length && written.every((e, i) => e.id === proposed[i]!.id)) {
      const last = written.at(-1)!;
      return { ok: true, revision: last.revision, position: last.prepare };
    }
    return { ok: false, reason: 'wrong_expected_version', current: this.head(stream) };
  }
}
