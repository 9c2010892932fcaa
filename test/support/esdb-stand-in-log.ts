/**
 * The transaction log behind the EventStoreDB protocol STAND-IN (not a server): an in-memory $all with
 * the position rules a real EventStoreDB follows for an append (one implicit transaction):
 * - every event is a prepare record at a growing byte offset in the log (its prepare position);
 * - all events of one append share one commit position, the offset of the append's first prepare;
 * - $all is ordered by (commit, prepare); an append is answered with (commit, commit), the first event.
 * Records take a plausible number of bytes, so positions are neither 0, 1, 2 nor one apart.
 */
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

export type AppendOutcome = { readonly ok: true; readonly revision: bigint; readonly commit: bigint } | { readonly ok: false; readonly current: bigint | null };

export interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Bytes a prepare record takes besides its payload (header, ids, type, timestamps). */
const RECORD_OVERHEAD = 97n;

export const atOrAfter = (event: StoredEvent, from: LogPosition) =>
  event.commit > from.commit || (event.commit === from.commit && event.prepare >= from.prepare);

export class StandInLog {
  readonly events: StoredEvent[] = [];
  private readonly heads = new Map<string, bigint>();
  private readonly listeners = new Set<(appended: readonly StoredEvent[]) => void>();
  private offset = 0n;

  constructor() {
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
    return this.heads.get(stream) ?? null;
  }

  append(stream: string, expected: Expected, proposed: readonly ProposedEvent[]): AppendOutcome {
    const current = this.head(stream);
    const ok =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && current === expected.revision);
    if (!ok) return { ok: false, current };
    const commit = this.offset;
    const created = BigInt(Date.now()) * 10_000n;
    let revision = current ?? -1n;
    const appended: StoredEvent[] = [];
    for (const event of proposed) {
      revision += 1n;
      const stored = { ...event, stream, revision, commit, prepare: this.offset, created };
      this.offset += RECORD_OVERHEAD + BigInt(stream.length + event.type.length + event.data.length + event.customMetadata.length);
      appended.push(stored);
    }
    this.events.push(...appended);
    this.heads.set(stream, revision);
    for (const listener of [...this.listeners]) listener(appended);
    return { ok: true, revision, commit };
  }

  /** Calls `listener` with the events of every append from now on; returns a function that stops it. */
  watch(listener: (appended: readonly StoredEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
