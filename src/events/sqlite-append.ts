import { v7 as uuidv7 } from 'uuid';
import { openSqlite, statementCache, type SqliteDatabase } from '../shared/sqlite.ts';
import type { ExpectedRevision } from './event-store.ts';
import { chainHash, GENESIS, RECORDED_HASH_VERSION, recordedEventHash } from './event-chain.ts';
import { eventsSchema } from './sqlite-events-schema.ts';
import { replayedAppend, type StoredEventId } from './sqlite-replayed-append.ts';
import { describeFailure, type AppendOutcome, type EncodedAppend, type StoredAt, type WriterFailure } from './sqlite-writer-protocol.ts';

/**
 * How long the writer waits for another process's write lock (the CLI, another API process) before the
 * group fails as unavailable. It waits in the writer thread: the event loop of the process goes on.
 */
export const WRITE_BUSY_TIMEOUT_MS = 5000;

class Conflict extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super('revision conflict');
  }
}

function check(streamName: string, expected: ExpectedRevision, current: bigint | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'bigint' && current === expected);
  if (!ok) throw new Conflict(streamName, expected, current ?? 'no_stream');
}

type Replayed = (append: EncodedAppend) => { nextRevision: bigint; position: bigint } | null;

/**
 * Runs one append of a group; a revision that another writer took in the meantime is a conflict, unless
 * `replayed` finds the append already stored (the same command retried): then it answers as the first did,
 * and its `alongside`, undone with the rest of its savepoint, is answered as not stored. A conflict on the
 * `alongside`'s stream is that stream's, whatever the append's own holds.
 */
function attempt(append: () => AppendOutcome, pending: EncodedAppend, replayed: Replayed): AppendOutcome {
  const { expected } = pending;
  try {
    return append();
  } catch (error) {
    if (error instanceof Conflict && error.streamName !== pending.streamName) {
      return { ok: false, conflict: { expected: error.expected, actual: error.actual, streamName: error.streamName } };
    }
    const code = (error as { code?: unknown }).code;
    const conflict = error instanceof Conflict || code === 'SQLITE_CONSTRAINT_UNIQUE';
    const earlier = conflict ? replayed(pending) : null;
    if (earlier) return { ok: true, ...earlier, ...(pending.alongside ? { alongside: null } : {}) };
    if (error instanceof Conflict) return { ok: false, conflict: { expected: error.expected, actual: error.actual } };
    // Two writers that passed the check cannot both insert the same revision.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') return { ok: false, conflict: { expected, actual: 'no_stream' } };
    // A failure of the file itself (I/O, full disk, busy) fails the whole group; anything else only this append.
    const failure = describeFailure(error);
    if (failure.kind === 'unavailable') throw error;
    return { ok: false, failure };
  }
}

/**
 * The write connection of `events.sqlite`: groups of appends, each group one `BEGIN IMMEDIATE`
 * transaction and one fsync, each append a savepoint checked against its stream's revision.
 */
export class SqliteAppender {
  private readonly db: SqliteDatabase;
  private readonly appendGroup: (group: readonly EncodedAppend[]) => AppendOutcome[];

  constructor(path: string) {
    this.db = openSqlite(path, eventsSchema);
    this.db.pragma(`busy_timeout = ${WRITE_BUSY_TIMEOUT_MS}`);
    // Each append in a group is a savepoint, whose undo pages SQLite otherwise spills to a temporary file
    // past 64 KiB: a group of a few dozen appends wrote hundreds of kilobytes there per commit.
    this.db.pragma('temp_store = MEMORY');
    const sql = statementCache(this.db);
    const streamHead = sql<[string], { revision: number | bigint; event_hash: string }>(
      'SELECT revision, event_hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1',
    );
    const logHead = sql<[], { chain_hash: string }>('SELECT chain_hash FROM events ORDER BY position DESC LIMIT 1');
    // AUTOINCREMENT's counter, not the last row: a position is never given twice, even after rows were removed.
    const lastPosition = sql<[], { seq: number | bigint }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'");
    const insert = sql(
      `INSERT INTO events (position, event_id, stream, revision, type, data, metadata, recorded_at, prev_hash, event_hash, chain_hash, hash_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${RECORDED_HASH_VERSION})`,
    );
    // Event ids are UUIDv7, ordered by time: their unique index then grows at one end, where random ids put
    // every append of a group on a page of its own, written to the log and checkpointed again.
    // This thread is the only writer of the file and holds its write lock: the chains' heads read here
    // cannot move before the rows that extend them commit (event-chain.ts).
    const appendOne = this.db.transaction(({ streamName, events, expected }: Omit<EncodedAppend, 'alongside'>): StoredAt => {
      const head = streamHead.get(streamName);
      const current = head === undefined ? null : BigInt(head.revision);
      check(streamName, expected, current);
      let revision = current ?? -1n;
      let previous = head?.event_hash ?? GENESIS;
      let chain = logHead.get()?.chain_hash ?? GENESIS;
      let position = BigInt(lastPosition.get()?.seq ?? 0);
      const recordedAt = new Date().toISOString();
      for (const event of events) {
        revision += 1n;
        position += 1n;
        const eventId = event.id ?? uuidv7();
        const content = { eventId, stream: streamName, revision, type: event.type, data: event.data, metadata: event.metadata, recordedAt };
        const hashed = recordedEventHash(content, previous);
        chain = chainHash(chain, position, hashed);
        insert.run(position, eventId, streamName, revision, event.type, event.data, event.metadata, recordedAt, previous, hashed, chain);
        previous = hashed;
      }
      return { nextRevision: revision, position };
    });
    // The other stream's part first, in the same savepoint: a conflict or failure in either undoes both.
    const appendJoint = this.db.transaction((append: EncodedAppend): AppendOutcome => {
      if (!append.alongside) return { ok: true, ...appendOne(append) };
      const alongside = appendOne(append.alongside);
      return { ok: true, ...appendOne(append), alongside };
    });
    const byId = sql<[string], StoredEventId>('SELECT stream, revision, position FROM events WHERE event_id = ?');
    const replayed: Replayed = ({ streamName, events, expected }) => replayedAppend((id) => byId.get(id), streamName, events, expected);
    const group = this.db.transaction((appends: readonly EncodedAppend[]) => appends.map((append) => attempt(() => appendJoint(append), append, replayed)));
    this.appendGroup = (appends) => group.immediate(appends);
  }

  append(appends: readonly EncodedAppend[]): AppendOutcome[] {
    return this.appendGroup(appends);
  }

  /**
   * Commits one page without waiting for a lock: rewriting the schema version with its own value is a
   * real write (a frame in the log, an fsync) that changes nothing. Null when it went through.
   */
  probe(): WriterFailure | null {
    this.db.pragma('busy_timeout = 0');
    try {
      const rewrite = this.db.transaction(() => {
        const version = Number(this.db.pragma('user_version', { simple: true }));
        this.db.pragma(`user_version = ${version}`);
      });
      rewrite.immediate();
      return null;
    } catch (error) {
      return describeFailure(error);
    } finally {
      this.db.pragma(`busy_timeout = ${WRITE_BUSY_TIMEOUT_MS}`);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
