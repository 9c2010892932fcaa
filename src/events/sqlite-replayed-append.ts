import type { AppendResult, ExpectedRevision, NewEvent } from './event-store.ts';

/** Where an event id is stored, if it is. */
export interface StoredEventId {
  readonly stream: string;
  readonly revision: number | bigint;
  readonly position: number | bigint;
}

/**
 * EventStoreDB's idempotent write (IndexCommitter.CheckCommit, CommitDecision.Idempotent): an append
 * whose event ids are all stored, in this stream, one after another right after the expected revision,
 * was made before (the same command retried), and is answered as it was then. Ids that match only in
 * part are a conflict, as the server's CorruptedIdempotency is. Null when the append is not a replay.
 */
export function replayedAppend(
  stored: (eventId: string) => StoredEventId | undefined,
  streamName: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
): AppendResult | null {
  const rows = events.map((event) => (event.id === undefined ? undefined : stored(event.id)));
  const first = rows[0] ? BigInt(rows[0].revision) : null;
  if (first === null) return null;
  if ((typeof expected === 'bigint' && first !== expected + 1n) || (expected === 'no_stream' && first !== 0n)) return null;
  if (!rows.every((row, i) => row?.stream === streamName && BigInt(row.revision) === first + BigInt(i))) return null;
  const last = rows.at(-1)!;
  return { nextRevision: BigInt(last.revision), position: BigInt(last.position) };
}
