import { retryWhileBusy, translateSqliteError } from '../shared/sqlite-busy.ts';
import { durabilityOf, openSqlite, statementCache, type ConnectionDurability, type SqliteDatabase } from '../shared/sqlite.ts';
import { accountEventsStream } from '../accounts/account-events.ts';
import type { AccountStreams } from './account-streams.ts';
import { ACCOUNT_EVENTS_SQL } from './sqlite-account-index.ts';
import type { HistoryChunk, HistoryText, HistoryTextQuery } from './history-text.ts';
import { sqliteHistoryText } from './sqlite-history-text.ts';
import { EVENT_COLUMNS, fromColumns, toRecorded, type EventRow } from './sqlite-event-rows.ts';
import { GroupCommit, type Outcome } from './group-commit.ts';
import { watchSqliteCommits } from './sqlite-change-watch.ts';
import { eventsSchema } from './sqlite-events-schema.ts';
import { SqliteWriter } from './sqlite-writer.ts';
import { encode, toError, type EncodedAppend, type WriterReply } from './sqlite-writer-protocol.ts';
import {
  ConcurrencyError,
  EventStoreUnavailableError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type JointAppendResult,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
} from './event-store.ts';
import { storePath } from '../shared/store-files.ts';
import { ChangeSignal } from '../shared/change-signal.ts';

/** Reads on the main connection: a busy file is retried without blocking, then reported as unavailable. */
async function reading<T>(call: () => T): Promise<T> {
  try {
    return await retryWhileBusy(call);
  } catch (error) {
    throw translateSqliteError(error, 'event store', (message, cause) => new EventStoreUnavailableError(message, 'unreachable', { cause }));
  }
}

/**
 * Embedded event store: one SQLite table, `UNIQUE(stream, revision)` as the last line of defence for
 * optimistic concurrency, and `BEGIN IMMEDIATE` so the check and the insert are one atomic step even
 * against another process. WAL with FULL sync makes an acknowledged append durable. Appends run in a
 * writer thread (sqlite-append.ts), so a lock held elsewhere or a slow fsync never stalls the event
 * loop; reads use a connection of the main thread, which WAL lets read while another one writes.
 */
export class SqliteEventStore implements EventStore, AccountStreams, HistoryText {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly appended = new ChangeSignal({ start: () => this.watchCommits(), stop: () => this.unwatchCommits() });
  private stopWatching: (() => void) | undefined;
  private dataVersion = 0;
  private readonly writer: SqliteWriter;
  private readonly appends: GroupCommit<EncodedAppend, AppendResult & { readonly alongside?: AppendResult | null }>;
  private committed = 0;
  private closed = false;
  /** Why the last group of appends failed as unavailable; null once one commits again. */
  private writeFailure: string | null = null;

  constructor(private readonly path: string) {
    // Creates the file and brings its schema up to date before the writer thread opens it.
    this.db = openSqlite(path, eventsSchema, 'full', 'main-thread');
    this.sql = statementCache(this.db);
    this.writer = new SqliteWriter(path);
    this.appends = new GroupCommit(
      (group) => this.commitGroup(group),
      () => this.afterOwnCommit(),
    );
  }

  static inDataDir(dataDir: string): SqliteEventStore {
    return new SqliteEventStore(storePath(dataDir, 'events'));
  }

  /**
   * Appends made in the same turn of the event loop share one `BEGIN IMMEDIATE` transaction and one
   * fsync (group commit); each stream's revision is still checked on its own, in submission order, and
   * a conflict fails only its own append. The promise resolves once the transaction is on disk.
   */
  async appendToStream(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('nothing to append');
    if (this.closed) throw new TypeError('The database connection is not open');
    return this.appends.submit({ streamName, events: events.map(encode), expected });
  }

  /** As appendToStream, with `alongside` in the same savepoint of the same group's transaction. */
  async appendWith(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision, alongside: StreamAppend): Promise<JointAppendResult> {
    if (events.length === 0 || alongside.events.length === 0) throw new RangeError('nothing to append');
    if (alongside.streamName === streamName) throw new RangeError('a joint append is on two streams');
    if (this.closed) throw new TypeError('The database connection is not open');
    const other = { streamName: alongside.streamName, events: alongside.events.map(encode), expected: alongside.expected };
    const result = await this.appends.submit({ streamName, events: events.map(encode), expected, alongside: other });
    return { ...result, alongside: result.alongside ?? null };
  }

  async readStream(streamName: string, { after = -1n }: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    return reading(() =>
      this.sql<[string, bigint], EventRow>('SELECT * FROM events WHERE stream = ? AND revision > ? ORDER BY revision').all(streamName, after).map(toRecorded),
    );
  }

  async readLastEvent(streamName: string): Promise<RecordedEvent | null> {
    return reading(() => {
      // all(), not get(): the statement runs to its end and is reset at once.
      const [row] = this.sql<[string], EventRow>('SELECT * FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').all(streamName);
      return row ? toRecorded(row) : null;
    });
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    return reading(() =>
      this.sql<[bigint, number], unknown[]>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
        .raw(true)
        .all(after ?? 0n, limit)
        .map(fromColumns),
    );
  }

  async readAccountEvents(accountId: string): Promise<readonly RecordedEvent[]> {
    return reading(() => this.sql<[string, string], unknown[]>(ACCOUNT_EVENTS_SQL).raw(true).all(accountId, accountEventsStream(accountId)).map(fromColumns));
  }

  /** For an export, which has the connection to itself: an account's lines keep it busy until read. */
  historyText(query: HistoryTextQuery): Iterable<HistoryChunk> {
    return sqliteHistoryText(this.db, query);
  }

  onAppend(listener: () => void): () => void {
    return this.appended.listen(listener);
  }

  /** Write transactions committed by this connection so far: each is one fsync, whatever it holds. */
  get commits(): number {
    return this.committed;
  }

  /**
   * Null while appends work; after a group failed as unavailable, the answer of a probe write, which
   * clears the failure when it goes through (the disk has room again, the lock was released).
   */
  async writeProblem(): Promise<string | null> {
    if (this.writeFailure === null || this.closed) return null;
    const reply = await this.writer.request({ kind: 'probe' });
    if (reply.kind === 'probed' && reply.failure === null) this.writeFailure = null;
    else if (reply.kind === 'probed' || reply.kind === 'failed') this.writeFailure = reply.failure!.message;
    return this.writeFailure;
  }

  /**
   * Journal mode and sync level, as SQLite reports them for the main connection; the writer thread opens
   * the file with the same settings (openSqlite).
   */
  durability(): ConnectionDurability {
    return durabilityOf(this.db);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unwatchCommits();
    this.appended.clear();
    // Appends already made are answered first: the writer takes requests in order.
    await this.writer.close();
    if (this.db.open) this.db.close();
  }

  private async commitGroup(group: readonly EncodedAppend[]): Promise<readonly Outcome<AppendResult & { readonly alongside?: AppendResult | null }>[]> {
    const reply: WriterReply = await this.writer.request({ kind: 'append', appends: group }).catch((error: unknown) => {
      this.writeFailure = (error as Error).message;
      throw error;
    });
    if (reply.kind !== 'appended') {
      const failure = reply.kind === 'failed' ? reply.failure : { kind: 'failed' as const, message: `unexpected reply ${reply.kind}`, code: null };
      if (failure.kind === 'unavailable') this.writeFailure = failure.message;
      throw toError(failure);
    }
    this.committed += 1;
    this.writeFailure = null;
    return reply.outcomes.map((outcome, i): Outcome<AppendResult & { readonly alongside?: AppendResult | null }> => {
      if (outcome.ok) {
        const at = { nextRevision: outcome.nextRevision, position: outcome.position };
        return { ok: true, value: outcome.alongside === undefined ? at : { ...at, alongside: outcome.alongside } };
      }
      const { streamName } = group[i]!;
      if ('conflict' in outcome) {
        const { conflict } = outcome;
        return { ok: false, error: new ConcurrencyError(conflict.streamName ?? streamName, conflict.expected, conflict.actual) };
      }
      return { ok: false, error: toError(outcome.failure) };
    });
  }

  /**
   * The writer thread is another connection to this one, so its commits also move `data_version`: when
   * the file watch has already seen the version that includes this commit, listeners were told after it.
   */
  private afterOwnCommit(): void {
    if (!this.stopWatching || !this.db.open) return this.notify();
    const version = this.readDataVersion();
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.notify();
  }

  private notify(): void {
    this.appended.notify();
  }

  /**
   * `PRAGMA data_version` changes only when another connection commits: a cheap question, asked whenever
   * the file's write-ahead log changes, so another process's append (the CLI, other API processes) is heard at once.
   */
  private watchCommits(): void {
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

  private unwatchCommits(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  private readDataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }
}
