import type BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { openSqlite, type SqliteDatabase } from '../shared/sqlite.ts';
import type { FilterView, V1FilterRecord } from './filter-view.ts';
import type { ManagedReadStore } from './read-model-admin.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ReadStore } from './read-store.ts';
import { dropTables, SqliteReadTables } from './sqlite-read-tables.ts';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS read_model_pointer (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    current INTEGER NOT NULL,
    pending INTEGER,
    next INTEGER NOT NULL
  );
  INSERT OR IGNORE INTO read_model_pointer (id, current, pending, next) VALUES (1, 0, NULL, 1);
  CREATE TABLE IF NOT EXISTS projection_leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
`;

interface Pointer {
  current: number;
  pending: number | null;
  next: number;
}

/**
 * Embedded read models in `<DATA_DIR>/read-models.sqlite`. Every query and write first reads which
 * generation of tables is current (inside the write's transaction), so a swap made by another process
 * is followed at once. A store made by `generation(n)` is pinned to generation n instead.
 */
export class SqliteReadStore implements ManagedReadStore {
  private readonly tables = new Map<number, SqliteReadTables>();
  private readonly saveTx: BetterSqlite3.Transaction<(view: FilterView, checkpoint: Checkpoint) => void>;
  private readonly advanceTx: BetterSqlite3.Transaction<(checkpoint: Checkpoint) => void>;
  private readonly pointer: BetterSqlite3.Statement<[], Pointer>;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly pinned: number | null,
  ) {
    db.exec(SCHEMA);
    this.pointer = db.prepare<[], Pointer>('SELECT current, pending, next FROM read_model_pointer WHERE id = 1');
    this.saveTx = db.transaction((view, checkpoint) => this.tablesNow().save(view, checkpoint));
    this.advanceTx = db.transaction((checkpoint) => this.tablesNow().advance(checkpoint));
  }

  static open(path: string): SqliteReadStore {
    return new SqliteReadStore(openSqlite(path, 'rebuildable'), null);
  }

  static inDataDir(dataDir: string): SqliteReadStore {
    return SqliteReadStore.open(join(dataDir, 'read-models.sqlite'));
  }

  /**
   * For a connection that only fills a fresh generation: commits need not reach the disk one by one, since
   * a crash merely leaves a generation that nobody reads (WAL keeps the file consistent either way).
   */
  relaxDurability(): this {
    this.db.pragma('synchronous = NORMAL');
    return this;
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    return this.tablesNow().loadFilter(filterId);
  }

  async saveFilter(view: FilterView, checkpoint: Checkpoint): Promise<void> {
    this.saveTx.immediate(view, checkpoint);
  }

  async advanceCheckpoint(checkpoint: Checkpoint): Promise<void> {
    this.advanceTx.immediate(checkpoint);
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    return this.tablesNow().checkpoint(projection);
  }

  async listFilters(accountId: string): Promise<readonly FilterView[]> {
    return this.tablesNow().listFilters(accountId);
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    return this.tablesNow().getFilter(accountId, filterId);
  }

  async listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]> {
    return this.tablesNow().listV1Filters(accountId);
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    return this.tablesNow().getV1Filter(accountId, keywordId);
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    return this.tablesNow().findKeyword(accountId, keywordId);
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    return this.tablesNow().findFilterStatus(accountId, filterStatusId);
  }

  async tryLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const take = this.db.transaction(() => {
      const now = Date.now();
      const held = this.db.prepare<[string], { owner: string; expires_at: number }>('SELECT owner, expires_at FROM projection_leases WHERE name = ?').get(name);
      if (held && held.owner !== owner && held.expires_at > now) return false;
      this.db
        .prepare('INSERT INTO projection_leases (name, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at')
        .run(name, owner, now + ttlMs);
      return true;
    });
    return take.immediate();
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    if (this.db.open) this.db.prepare('DELETE FROM projection_leases WHERE name = ? AND owner = ?').run(name, owner);
  }

  async currentGeneration(): Promise<number> {
    return this.pointer.get()!.current;
  }

  async pendingGeneration(): Promise<number | null> {
    return this.pointer.get()!.pending;
  }

  async createGeneration(): Promise<number> {
    const create = this.db.transaction(() => {
      const { current, next } = this.pointer.get()!;
      this.db.prepare('UPDATE read_model_pointer SET next = ? WHERE id = 1').run(next + 1);
      for (const generation of this.storedGenerations()) {
        if (generation < current) dropTables(this.db, generation);
      }
      for (const cached of this.tables.keys()) if (cached < current) this.tables.delete(cached);
      this.tables.set(next, new SqliteReadTables(this.db, next));
      return next;
    });
    return create.immediate();
  }

  generation(generation: number): ReadStore {
    return new SqliteReadStore(this.db, generation);
  }

  async markPending(generation: number): Promise<void> {
    this.db.prepare('UPDATE read_model_pointer SET pending = ? WHERE id = 1').run(generation);
  }

  async swapIn(generation: number): Promise<boolean> {
    const result = this.db.prepare('UPDATE read_model_pointer SET current = pending, pending = NULL WHERE id = 1 AND pending = ?').run(generation);
    return result.changes === 1;
  }

  async close(): Promise<void> {
    // A pinned store shares its parent's connection; the parent closes it.
    if (this.pinned === null && this.db.open) this.db.close();
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

  private storedGenerations(): number[] {
    return this.db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND (name = 'checkpoints' OR name GLOB 'checkpoints_g[0-9]*')")
      .all()
      .map(({ name }) => (name === 'checkpoints' ? 0 : Number(name.slice('checkpoints_g'.length))));
  }
}
