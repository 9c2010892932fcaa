import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { durabilityOf, openSqlite, statementCache, type ConnectionDurability, type SqliteDatabase } from '../shared/sqlite.ts';
import type { AccountStreams } from './account-streams.ts';
import { ACCOUNT_EVENTS_SQL } from './sqlite-account-index.ts';
import { EVENT_COLUMNS, fromColumns } from './sqlite-event-rows.ts';
import { GroupCommit, type Outcome } from './group-commit.ts';
import { watchSqliteCommits } from './sqlite-change-watch.ts';
import { eventsSchema } from './sqlite-events-schema.ts';
import { replayedAppend, type StoredEventId } from './sqlite-replayed-append.ts';
import {
  ConcurrencyError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './event-store.ts';

interface EventRow {
  position: number | bigint;
  event_id: string;
  stream: string;
  revision: number | bigint;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  streamName: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as unknown,
  recordedAt: row.recorded_at,
});

interface PendingAppend {
  readonly streamName: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

/**
 * Runs one append of a group; a revision that another writer took in the meantime is a conflict, unless
 * `replayed` finds the append already stored (the same command retried): then it answers as the first did.
 */
function attempt(append: () => AppendResult, pending: PendingAppend, replayed: (pending: PendingAppend) => AppendResult | null): Outcome<AppendResult> {
  const { streamName, expected } = pending;
  try {
    return { ok: true, value: append() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const conflict = error instanceof ConcurrencyError || code === 'SQLITE_CONSTRAINT_UNIQUE';
    const earlier = conflict ? replayed(pending) : null;
    if (earlier) return { ok: true, value: earlier };
    // Two writers that passed the check cannot both insert the same revision.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') return { ok: false, error: new ConcurrencyError(streamName, expected, 'no_stream') };
    // A failure of the file itself (I/O, full disk, busy) fails the whole group; anything else only this append.
    if (typeof code === 'string' && code.startsWith('SQLITE_') && !code.startsWith('SQLITE_CONSTRAINT')) throw error;
    return { ok: false, error };
  }
}

function check(streamName: string, expected: ExpectedRevision, current: bigint | null): void {
  const actual = current ?? 'no_stream';
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'bigint' && current === expected);
  if (!ok) throw new ConcurrencyError(streamName, expected, actual);
}

/**
 * Embedded event store: one SQLite table, `UNIQUE(stream, revision)` as the last line of defence for
 * optimistic concurrency, and `BEGIN IMMEDIATE` so the check and the insert are one atomic step even
 * against another process. WAL with FULL sync makes an acknowledged append durable.
 */
export class SqliteEventStore implements EventStore, AccountStreams {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly listeners = new Set<() => void>();
  private stopWatching: (() => void) | undefined;
  private dataVersion = 0;
  private readonly appends: GroupCommit<PendingAppend, AppendResult>;
  private committed = 0;

  constructor(private readonly path: string) {
    this.db = openSqlite(path, eventsSchema);
    // Each append in a group is a savepoint, whose undo pages SQLite otherwise spills to a temporary file
    // past 64 KiB: a group of a few dozen appends wrote hundreds of kilobytes there per commit.
    this.db.pragma('temp_store = MEMORY');
    this.sql = statementCache(this.db);
    const currentRevision = this.sql<[string], { revision: number | bigint | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    const insert = this.sql(
      `INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    // Event ids are UUIDv7, ordered by time: their unique index then grows at one end, where random ids put
    // every append of a group on a page of its own, written to the log and checkpointed again.
    // Nested in the group's transaction, each append is a savepoint: one that fails leaves no trace.
    const appendOne = this.db.transaction(({ streamName, events, expected }: PendingAppend): AppendResult => {
      const found = currentRevision.get(streamName)?.revision;
      const current = found === null || found === undefined ? null : BigInt(found);
      check(streamName, expected, current);
      let revision = current ?? -1n;
      let position = 0n;
      const recordedAt = new Date().toISOString();
      for (const event of events) {
        revision += 1n;
        const result = insert.run(
          event.id ?? uuidv7(),
          streamName,
          revision,
          event.type,
          JSON.stringify(event.data),
          JSON.stringify(event.metadata ?? {}),
          recordedAt,
        );
        position = BigInt(result.lastInsertRowid);
      }
      return { nextRevision: revision, position };
    });
    const byId = this.sql<[string], StoredEventId>('SELECT stream, revision, position FROM events WHERE event_id = ?');
    const replayed = ({ streamName, events, expected }: PendingAppend) => replayedAppend((id) => byId.get(id), streamName, events, expected);
    const appendGroup = this.db.transaction((group: readonly PendingAppend[]) => group.map((pending) => attempt(() => appendOne(pending), pending, replayed)));
    this.appends = new GroupCommit(
      (group) => {
        const outcomes = appendGroup.immediate(group);
        this.committed += 1;
        return outcomes;
      },
      () => this.notify(),
    );
  }

  static inDataDir(dataDir: string): SqliteEventStore {
    return new SqliteEventStore(join(dataDir, 'events.sqlite'));
  }

  /**
   * Appends made in the same turn of the event loop share one `BEGIN IMMEDIATE` transaction and one
   * fsync (group commit); each stream's revision is still checked on its own, in submission order, and
   * a conflict fails only its own append. The promise resolves once the transaction is on disk.
   */
  async appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('nothing to append');
    if (!this.db.open) throw new TypeError('The database connection is not open');
    return this.appends.submit({ streamName, events, expected });
  }

  async readStream(streamName: string, { after = -1n }: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    return this.sql<[string, bigint], EventRow>('SELECT * FROM events WHERE stream = ? AND revision > ? ORDER BY revision')
      .all(streamName, after)
      .map(toRecorded);
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    return this.sql<[bigint, number], unknown[]>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
      .raw(true)
      .all(after ?? 0n, limit)
      .map(fromColumns);
  }

  async readAccountEvents(accountId: string): Promise<readonly RecordedEvent[]> {
    return this.sql<[string], unknown[]>(ACCOUNT_EVENTS_SQL).raw(true).all(accountId).map(fromColumns);
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    this.startPolling();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  /** Write transactions committed by this connection so far: each is one fsync, whatever it holds. */
  get commits(): number {
    return this.committed;
  }

  /** Journal mode and sync level of the open connection, as SQLite reports them. */
  durability(): ConnectionDurability {
    return durabilityOf(this.db);
  }

  async close(): Promise<void> {
    this.stopPolling();
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * `PRAGMA data_version` changes only when another connection commits: a cheap question, asked whenever
   * the file's write-ahead log changes, so another process's append (the CLI, other API processes) is heard at once.
   */
  private startPolling(): void {
    if (this.stopWatching) return;
    this.dataVersion = this.readDataVersion();
    this.stopWatching = watchSqliteCommits(this.path, () => {
      if (!this.db.open) return;
      const version = this.readDataVersion();
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.notify();
      }
    });
  }

  private stopPolling(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  private readDataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }
}
