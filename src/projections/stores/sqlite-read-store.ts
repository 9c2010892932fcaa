import type BetterSqlite3 from 'better-sqlite3';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import { watchSqliteCommits } from '../../events/sqlite-change-watch.ts';
import type { LeaseHolder } from '../../shared/leases.ts';
import type { AnnouncedPosition } from './announced-positions.ts';
import { durabilityOf, openSqlite, type ConnectionDurability, type SqliteDatabase } from '../../shared/sqlite.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import type { ManagedReadStore } from './managed-read-store.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ParkedEvent, ProjectionBatch, ReadStore } from './read-store.ts';
import { sqliteCall, translateSqliteError } from './sqlite-errors.ts';
import { SqliteAnnouncedPositions } from './sqlite-announced-positions.ts';
import { BUSY_RETRY_LIMIT_MS, retryWhileBusy } from '../../shared/sqlite-busy.ts';
import { SqliteLeases, sqliteClock } from './sqlite-leases.ts';
import { readModelsSchema } from './sqlite-read-models-schema.ts';
import { createReadIndexes, dropReadTables, storedGenerations } from './sqlite-generation-tables.ts';
import { SqliteReadTables } from './sqlite-read-tables.ts';
import { storePath } from '../../shared/store-files.ts';
import { ChangeSignal } from '../../shared/change-signal.ts';
import { WalCheckpointer, type CheckpointPace } from '../../shared/wal-checkpointer.ts';

interface Pointer {
  current: number;
  pending: number | null;
  next: number;
}

export interface SqliteReadStoreOptions {
  /** Stands in for SQLite's clock in tests (they move it instead of waiting); unset: SQLite's own (sqliteClock). */
  readonly now?: () => number;
}

/**
 * Embedded read models in `<DATA_DIR>/read-models.sqlite`. Every query and write first reads which
 * generation of tables is current (inside the write's transaction), so a swap made by another process
 * is followed at once. A store made by `generation(n)` is pinned to generation n instead.
 */
/** A projector batch writes tens of pages (both models' rows, their indexes, the checkpoint): 4-8 times a counter's. */
const PROJECTOR_CHECKPOINTS: CheckpointPace = { transactionsPerCheckpoint: 8, maxBacklog: 48 };

/** The longest pause between two tries for the write lock: how long a freed lock may stay unnoticed. */
const WRITE_MAX_PAUSE_MS = 4;

export class SqliteReadStore implements ManagedReadStore {
  private readonly tables: Map<number, SqliteReadTables>;
  private readonly batchTx: BetterSqlite3.Transaction<(batch: ProjectionBatch) => void>;
  private readonly pointer: BetterSqlite3.Statement<[], Pointer>;
  private readonly leases: SqliteLeases;
  private readonly announcedPositions: SqliteAnnouncedPositions;
  private readonly dataVersion: BetterSqlite3.Statement<[], number>;
  private readonly totalChanges: BetterSqlite3.Statement<[], number>;

  private readonly changed = new ChangeSignal({ start: () => this.watch(), stop: () => this.unwatch() });
  private stopWatching: (() => void) | undefined;

  private constructor(
    private readonly path: string,
    private readonly db: SqliteDatabase,
    private readonly pinned: number | null,
    private readonly now: () => number,
    tables?: Map<number, SqliteReadTables>,
    /**
     * The file's checkpoints, shared with the generations pinned on this connection. SQLite's own
     * would run in the commit of a projector batch, every few hundred of them: a 10-17 ms stall of
     * the event loop each (wal-checkpointer.ts), and 1.2 s of the API's 9.1 s under a POST load. Its
     * thread starts at the first checkpoint: every CLI command and test opens a read store, and only the
     * projector writes here, which a thread still starting holds back, never a request's deadline.
     */
    private readonly checkpoints: WalCheckpointer | null = db.memory ? null : new WalCheckpointer(db, PROJECTOR_CHECKPOINTS, false),
  ) {
    this.tables = tables ?? new Map<number, SqliteReadTables>();
    this.leases = new SqliteLeases(db, now);
    this.announcedPositions = new SqliteAnnouncedPositions(db);
    this.pointer = db.prepare<[], Pointer>('SELECT current, pending, next FROM read_model_pointer WHERE id = 1');
    this.batchTx = db.transaction((batch) => this.tablesNow().store(batch));
    // data_version moves when another connection commits, total_changes when this one writes a row. Two
    // statements: the pragma alone costs half of one SELECT reading it through pragma_data_version, and
    // total_changes() reads no table (every GET asks, 3-5 us of its 100 on this machine).
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  }

  static open(path: string, options: SqliteReadStoreOptions = {}): SqliteReadStore {
    return sqliteCall(() => {
      const db = openSqlite(path, readModelsSchema, 'rebuildable', 'main-thread');
      return new SqliteReadStore(path, db, null, options.now ?? sqliteClock(db));
    });
  }

  static inDataDir(dataDir: string, options: SqliteReadStoreOptions = {}): SqliteReadStore {
    return SqliteReadStore.open(storePath(dataDir, 'readModels'), options);
  }

  /**
   * For a connection that only fills a fresh generation: commits need not reach the disk one by one, since
   * a crash merely leaves a generation that nobody reads (WAL keeps the file consistent either way).
   * A large page cache (256 MiB, used only as the tables grow) keeps a long fill from slowing down as
   * its indexes outgrow SQLite's default 2 MiB and every batch reads and spills their pages again.
   */
  relaxDurability(): this {
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -262144');
    return this;
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    return this.call(() => this.tablesNow().loadFilter(filterId));
  }

  async loadFilters(filterIds: readonly string[]): Promise<ReadonlyMap<string, FilterView>> {
    return this.call(() => {
      const tables = this.tablesNow();
      const found = new Map<string, FilterView>();
      for (const id of filterIds) {
        const view = tables.loadFilter(id);
        if (view) found.set(id, view);
      }
      return found;
    });
  }

  async applyBatch(batch: ProjectionBatch): Promise<void> {
    await this.write(() => this.batchTx.immediate(batch));
  }

  async saveFilter(view: FilterView, { projection, position }: Checkpoint): Promise<void> {
    await this.applyBatch({ projection, position, views: [view] });
  }

  async advanceCheckpoint({ projection, position }: Checkpoint): Promise<void> {
    await this.applyBatch({ projection, position, views: [] });
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    return this.call(() => this.tablesNow().checkpoint(projection));
  }

  async parkedEvents(projection: string): Promise<readonly ParkedEvent[]> {
    return this.call(() => this.tablesNow().parkedEvents(projection));
  }

  async listFilters(accountId: string): Promise<readonly FilterView[]> {
    return this.call(() => this.tablesNow().listFilters(accountId));
  }

  async accountsAfter(after: string | null, limit: number): Promise<readonly string[]> {
    return this.call(() => this.tablesNow().accountsAfter(after, limit));
  }

  async filtersVersion(accountId: string): Promise<string> {
    return this.tablesNow().filtersVersion(accountId);
  }

  async accountUsage(accountId: string, exceptFilterId: string): Promise<AccountUsage> {
    return this.call(() => this.tablesNow().accountUsage(accountId, exceptFilterId));
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    return this.call(() => this.tablesNow().getFilter(accountId, filterId));
  }

  async listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]> {
    return this.call(() => this.tablesNow().listV1Filters(accountId));
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    return this.call(() => this.tablesNow().getV1Filter(accountId, keywordId));
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    return this.call(() => this.tablesNow().findKeyword(accountId, keywordId));
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    return this.call(() => this.tablesNow().findFilterStatus(accountId, filterStatusId));
  }

  changeStamp(): string {
    return sqliteCall(() => `${this.dataVersion.get()!}:${this.totalChanges.get()!}`);
  }

  /** Heard at once through the write-ahead log's file-system events (see watchSqliteCommits), then `data_version`. */
  onChange(listener: () => void): () => void {
    return this.changed.listen(listener);
  }

  private watch(): void {
    if (this.stopWatching) return;
    let version = this.dataVersion.get()!;
    this.stopWatching = watchSqliteCommits(this.path, () => {
      if (!this.db.open) return;
      const now = this.dataVersion.get()!;
      if (now === version) return;
      version = now;
      this.changed.notify();
    });
  }

  private unwatch(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  async announced(channel: string): Promise<AnnouncedPosition | null> {
    return this.call(() => this.announcedPositions.announced(channel));
  }

  async markAnnounced(channel: string, position: bigint | null): Promise<void> {
    await this.write(() => this.announcedPositions.markAnnounced(channel, position));
  }

  tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.write(() => this.leases.tryLease(name, owner, ttlMs));
  }

  releaseLease(name: string, owner: string): Promise<void> {
    return this.write(() => this.leases.releaseLease(name, owner));
  }

  leaseHolder(name: string): Promise<LeaseHolder | null> {
    return this.call(() => this.leases.leaseHolder(name));
  }

  takeOverLease(name: string, from: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.write(() => this.leases.takeOverLease(name, from, owner, ttlMs));
  }

  async currentGeneration(): Promise<number> {
    return this.call(() => this.pointer.get()!.current);
  }

  async pendingGeneration(): Promise<number | null> {
    return this.call(() => this.pointer.get()!.pending);
  }

  async createGeneration(): Promise<number> {
    const create = this.db.transaction(() => {
      const { current, next } = this.pointer.get()!;
      this.db.prepare('UPDATE read_model_pointer SET next = ? WHERE id = 1').run(next + 1);
      for (const generation of storedGenerations(this.db)) {
        if (generation < current) dropReadTables(this.db, generation);
      }
      for (const cached of this.tables.keys()) if (cached < current) this.tables.delete(cached);
      // Indexed from the start: building an index on a filled generation is one write transaction as
      // long as the generation is large, and every other writer of the file (the live projector) waits it out.
      this.tables.set(next, new SqliteReadTables(this.db, next));
      return next;
    });
    return this.write(() => create.immediate());
  }

  async createScratchGeneration(): Promise<number> {
    const create = this.db.transaction(() => {
      const { next } = this.pointer.get()!;
      this.db.prepare('UPDATE read_model_pointer SET next = ? WHERE id = 1').run(next + 1);
      this.tables.set(next, new SqliteReadTables(this.db, next));
      return next;
    });
    return this.write(() => create.immediate());
  }

  async dropGeneration(generation: number): Promise<boolean> {
    const drop = this.db.transaction(() => {
      const { current, pending } = this.pointer.get()!;
      if (generation === current || generation === pending) return false;
      dropReadTables(this.db, generation);
      this.tables.delete(generation);
      return true;
    });
    return this.write(() => drop.immediate());
  }

  generation(generation: number): ReadStore {
    return new SqliteReadStore(this.path, this.db, generation, this.now, this.tables, this.checkpoints);
  }

  /** A generation made by an earlier version without the indexes queries need gets them here. */
  async markPending(generation: number): Promise<void> {
    await this.write(() => createReadIndexes(this.db, generation));
    await this.write(() => this.db.prepare('UPDATE read_model_pointer SET pending = ? WHERE id = 1').run(generation));
  }

  async swapIn(generation: number): Promise<boolean> {
    // Already there when a build that defers them marked it pending; a no-op then.
    await this.write(() => createReadIndexes(this.db, generation));
    const result = await this.write(() =>
      this.db.prepare('UPDATE read_model_pointer SET current = pending, pending = NULL WHERE id = 1 AND pending = ?').run(generation),
    );
    return result.changes === 1;
  }

  /** Journal mode and sync level of the open connection, as SQLite reports them. */
  durability(): ConnectionDurability {
    return durabilityOf(this.db);
  }

  async close(): Promise<void> {
    this.stopWatching?.();
    this.stopWatching = undefined;
    // A pinned store shares its parent's connection; the parent closes it.
    if (this.pinned !== null) return;
    await this.checkpoints?.close();
    if (this.db.open) this.db.close();
  }

  /**
   * A write of the live service: waits for another connection's write lock (a rebuild's) without blocking
   * the event loop, looking again every few milliseconds so a freed lock is taken at once.
   */
  private async write<T>(call: () => T | Promise<T>): Promise<T> {
    await this.checkpoints?.room();
    const written = await this.call(call, WRITE_MAX_PAUSE_MS);
    this.checkpoints?.wrote();
    return written;
  }

  /** Every call of the main thread's policy (sqlite-busy.ts): SQLITE_BUSY tried again without blocking, up to 5 s. */
  private async call<T>(call: () => T | Promise<T>, maxPauseMs?: number): Promise<T> {
    try {
      return await retryWhileBusy(call, BUSY_RETRY_LIMIT_MS, maxPauseMs);
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private tablesNow(): SqliteReadTables {
    const generation = this.pinned ?? this.pointer.get()!.current;
    let tables = this.tables.get(generation);
    if (!tables) {
      tables = new SqliteReadTables(this.db, generation);
      this.tables.set(generation, tables);
    }
    return tables;
  }
}
