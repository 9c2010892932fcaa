import type BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { openSqlite, type SqliteDatabase } from '../shared/sqlite.ts';
import type { FilterView, V1FilterRecord } from './filter-view.ts';
import { v1RecordsOf } from './filter-view.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation, ReadStore } from './read-store.ts';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS filters (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS filters_by_account ON filters (account_id, deleted);
  CREATE TABLE IF NOT EXISTS v1_filters (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    filter_id TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS v1_filters_by_account ON v1_filters (account_id);
  CREATE INDEX IF NOT EXISTS v1_filters_by_filter ON v1_filters (filter_id);
  CREATE TABLE IF NOT EXISTS filter_statuses (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    filter_id TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS filter_statuses_by_filter ON filter_statuses (filter_id);
  CREATE TABLE IF NOT EXISTS checkpoints (
    projection TEXT PRIMARY KEY,
    position TEXT NOT NULL
  );
`;

/** Ids are digit strings of varying length: shorter first gives numeric order without overflow. */
const BY_ID = 'ORDER BY length(id), id';

const parse = <T>(row: { doc: string } | undefined): T | null => (row ? (JSON.parse(row.doc) as T) : null);

/** Embedded read models in `<DATA_DIR>/read-models.sqlite`. */
export class SqliteReadStore implements ReadStore {
  private readonly db: SqliteDatabase;
  private readonly saveTx: BetterSqlite3.Transaction<(view: FilterView, checkpoint: Checkpoint) => void>;
  private readonly advanceTx: BetterSqlite3.Transaction<(checkpoint: Checkpoint) => void>;

  constructor(path: string) {
    this.db = openSqlite(path);
    this.db.exec(SCHEMA);
    const storedRevision = this.db.prepare<[string], { revision: number }>('SELECT revision FROM filters WHERE id = ?');
    const upsertFilter = this.db.prepare(
      `INSERT INTO filters (id, account_id, revision, deleted, doc) VALUES (@id, @accountId, @revision, @deleted, @doc)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = excluded.deleted, doc = excluded.doc`,
    );
    const clearV1 = this.db.prepare('DELETE FROM v1_filters WHERE filter_id = ?');
    const insertV1 = this.db.prepare('INSERT INTO v1_filters (id, account_id, filter_id, doc) VALUES (?, ?, ?, ?)');
    const clearStatuses = this.db.prepare('DELETE FROM filter_statuses WHERE filter_id = ?');
    const insertStatus = this.db.prepare('INSERT INTO filter_statuses (id, account_id, filter_id) VALUES (?, ?, ?)');
    const readCheckpoint = this.db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?');
    const writeCheckpoint = this.db.prepare(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
    );

    this.advanceTx = this.db.transaction(({ projection, position }: Checkpoint) => {
      const current = readCheckpoint.get(projection);
      if (current && BigInt(current.position) >= position) return;
      writeCheckpoint.run(projection, position.toString());
    });
    this.saveTx = this.db.transaction((view: FilterView, checkpoint: Checkpoint) => {
      const stored = storedRevision.get(view.id);
      if (!stored || stored.revision < view.revision) {
        upsertFilter.run({ id: view.id, accountId: view.accountId, revision: view.revision, deleted: view.deleted ? 1 : 0, doc: JSON.stringify(view) });
        clearV1.run(view.id);
        for (const record of v1RecordsOf(view)) insertV1.run(record.id, record.accountId, record.filterId, JSON.stringify(record));
        clearStatuses.run(view.id);
        for (const status of view.deleted ? [] : view.statuses) insertStatus.run(status.id, view.accountId, view.id);
      }
      this.advanceTx(checkpoint);
    });
  }

  static inDataDir(dataDir: string): SqliteReadStore {
    return new SqliteReadStore(join(dataDir, 'read-models.sqlite'));
  }

  async loadFilter(filterId: string): Promise<FilterView | null> {
    return parse(this.db.prepare<[string], { doc: string }>('SELECT doc FROM filters WHERE id = ?').get(filterId));
  }

  async saveFilter(view: FilterView, checkpoint: Checkpoint): Promise<void> {
    this.saveTx.immediate(view, checkpoint);
  }

  async advanceCheckpoint(checkpoint: Checkpoint): Promise<void> {
    this.advanceTx.immediate(checkpoint);
  }

  async checkpoint(projection: string): Promise<bigint | null> {
    const row = this.db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?').get(projection);
    return row ? BigInt(row.position) : null;
  }

  async listFilters(accountId: string): Promise<readonly FilterView[]> {
    return this.db
      .prepare<[string], { doc: string }>(`SELECT doc FROM filters WHERE account_id = ? AND deleted = 0 ${BY_ID}`)
      .all(accountId)
      .map((row) => JSON.parse(row.doc) as FilterView);
  }

  async getFilter(accountId: string, filterId: string): Promise<FilterView | null> {
    return parse(
      this.db.prepare<[string, string], { doc: string }>('SELECT doc FROM filters WHERE id = ? AND account_id = ? AND deleted = 0').get(filterId, accountId),
    );
  }

  async listV1Filters(accountId: string): Promise<readonly V1FilterRecord[]> {
    return this.db
      .prepare<[string], { doc: string }>(`SELECT doc FROM v1_filters WHERE account_id = ? ${BY_ID}`)
      .all(accountId)
      .map((row) => JSON.parse(row.doc) as V1FilterRecord);
  }

  async getV1Filter(accountId: string, keywordId: string): Promise<V1FilterRecord | null> {
    return parse(this.db.prepare<[string, string], { doc: string }>('SELECT doc FROM v1_filters WHERE id = ? AND account_id = ?').get(keywordId, accountId));
  }

  async findKeyword(accountId: string, keywordId: string): Promise<KeywordLocation | null> {
    const record = await this.getV1Filter(accountId, keywordId);
    if (!record) return null;
    return { filterId: record.filterId, keyword: { id: record.id, keyword: record.phrase, wholeWord: record.wholeWord } };
  }

  async findFilterStatus(accountId: string, filterStatusId: string): Promise<FilterStatusLocation | null> {
    const row = this.db
      .prepare<[string, string], { filter_id: string }>('SELECT filter_id FROM filter_statuses WHERE id = ? AND account_id = ?')
      .get(filterStatusId, accountId);
    if (!row) return null;
    const view = await this.getFilter(accountId, row.filter_id);
    const status = view?.statuses.find((s) => s.id === filterStatusId);
    return status ? { filterId: row.filter_id, status } : null;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
