import type BetterSqlite3 from 'better-sqlite3';
import { isId } from '../shared/ids.ts';
import type { SqliteDatabase } from '../shared/sqlite.ts';
import type { FilterView, V1FilterRecord } from './filter-view.ts';
import { v1RecordsOf } from './filter-view.ts';
import type { Checkpoint, FilterStatusLocation, KeywordLocation } from './read-store.ts';

const BASE_NAMES = ['filters', 'v1_filters', 'filter_statuses', 'checkpoints'] as const;

/** Generation 0 keeps the original table names, so a data directory from before generations still works. */
export const tableName = (base: (typeof BASE_NAMES)[number], generation: number): string =>
  generation === 0 ? base : `${base}_g${generation}`;

export function dropTables(db: SqliteDatabase, generation: number): void {
  for (const base of BASE_NAMES) db.exec(`DROP TABLE IF EXISTS ${tableName(base, generation)}`);
}

function schema(g: number): string {
  const [filters, v1, statuses, checkpoints] = BASE_NAMES.map((base) => tableName(base, g));
  return `
    CREATE TABLE IF NOT EXISTS ${filters} (
      id TEXT PRIMARY KEY, account_id TEXT NOT NULL, revision INTEGER NOT NULL, deleted INTEGER NOT NULL, doc TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${filters}_by_account ON ${filters} (account_id, deleted);
    CREATE TABLE IF NOT EXISTS ${v1} (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL, doc TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS ${v1}_by_account ON ${v1} (account_id);
    CREATE INDEX IF NOT EXISTS ${v1}_by_filter ON ${v1} (filter_id);
    CREATE TABLE IF NOT EXISTS ${statuses} (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS ${statuses}_by_filter ON ${statuses} (filter_id);
    CREATE TABLE IF NOT EXISTS ${checkpoints} (projection TEXT PRIMARY KEY, position TEXT NOT NULL);
  `;
}

/** Ids are digit strings of varying length: shorter first gives numeric order without overflow. */
const BY_ID = 'ORDER BY length(id), id';

type Doc = { doc: string };
const parse = <T>(row: Doc | undefined): T | null => (row ? (JSON.parse(row.doc) as T) : null);

/**
 * One generation's tables and prepared statements. Queries check their ids first, as the MongoDB store
 * must: whatever is not an id names no record. Writes are not transactions by themselves: the
 * store runs them inside one, together with the look-up of the current generation.
 */
export class SqliteReadTables {
  readonly save: (view: FilterView, checkpoint: Checkpoint) => void;
  readonly advance: (checkpoint: Checkpoint) => void;
  private readonly q: ReturnType<typeof queries>;

  constructor(db: SqliteDatabase, generation: number) {
    db.exec(schema(generation));
    this.q = queries(db, generation);
    const q = this.q;
    this.advance = ({ projection, position }) => {
      const current = q.readCheckpoint.get(projection);
      if (current && BigInt(current.position) >= position) return;
      q.writeCheckpoint.run(projection, position.toString());
    };
    this.save = (view, checkpoint) => {
      const stored = q.storedRevision.get(view.id);
      if (!stored || stored.revision < view.revision) {
        q.upsertFilter.run({ id: view.id, accountId: view.accountId, revision: view.revision, deleted: view.deleted ? 1 : 0, doc: JSON.stringify(view) });
        q.clearV1.run(view.id);
        for (const record of v1RecordsOf(view)) q.insertV1.run(record.id, record.accountId, record.filterId, JSON.stringify(record));
        q.clearStatuses.run(view.id);
        for (const status of view.deleted ? [] : view.statuses) q.insertStatus.run(status.id, view.accountId, view.id);
      }
      this.advance(checkpoint);
    };
  }

  loadFilter(filterId: string): FilterView | null {
    if (!isId(filterId)) return null;
    return parse(this.q.loadFilter.get(filterId));
  }

  checkpoint(projection: string): bigint | null {
    const row = this.q.readCheckpoint.get(projection);
    return row ? BigInt(row.position) : null;
  }

  listFilters(accountId: string): FilterView[] {
    if (!isId(accountId)) return [];
    return this.q.listFilters.all(accountId).map((row) => JSON.parse(row.doc) as FilterView);
  }

  getFilter(accountId: string, filterId: string): FilterView | null {
    if (!isId(accountId) || !isId(filterId)) return null;
    return parse(this.q.getFilter.get(filterId, accountId));
  }

  listV1Filters(accountId: string): V1FilterRecord[] {
    if (!isId(accountId)) return [];
    return this.q.listV1.all(accountId).map((row) => JSON.parse(row.doc) as V1FilterRecord);
  }

  getV1Filter(accountId: string, keywordId: string): V1FilterRecord | null {
    if (!isId(accountId) || !isId(keywordId)) return null;
    return parse(this.q.getV1.get(keywordId, accountId));
  }

  findKeyword(accountId: string, keywordId: string): KeywordLocation | null {
    const record = this.getV1Filter(accountId, keywordId);
    if (!record) return null;
    return { filterId: record.filterId, keyword: { id: record.id, keyword: record.phrase, wholeWord: record.wholeWord } };
  }

  findFilterStatus(accountId: string, filterStatusId: string): FilterStatusLocation | null {
    if (!isId(accountId) || !isId(filterStatusId)) return null;
    const row = this.q.findStatus.get(filterStatusId, accountId);
    if (!row) return null;
    const status = this.getFilter(accountId, row.filter_id)?.statuses.find((s) => s.id === filterStatusId);
    return status ? { filterId: row.filter_id, status } : null;
  }
}

function queries(db: SqliteDatabase, g: number) {
  const [filters, v1, statuses, checkpoints] = BASE_NAMES.map((base) => tableName(base, g));
  const prepare = <P extends unknown[], R = unknown>(sql: string): BetterSqlite3.Statement<P, R> => db.prepare<P, R>(sql);
  return {
    storedRevision: prepare<[string], { revision: number }>(`SELECT revision FROM ${filters} WHERE id = ?`),
    upsertFilter: db.prepare(
      `INSERT INTO ${filters} (id, account_id, revision, deleted, doc) VALUES (@id, @accountId, @revision, @deleted, @doc)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = excluded.deleted, doc = excluded.doc`,
    ),
    clearV1: db.prepare(`DELETE FROM ${v1} WHERE filter_id = ?`),
    insertV1: db.prepare(`INSERT INTO ${v1} (id, account_id, filter_id, doc) VALUES (?, ?, ?, ?)`),
    clearStatuses: db.prepare(`DELETE FROM ${statuses} WHERE filter_id = ?`),
    insertStatus: db.prepare(`INSERT INTO ${statuses} (id, account_id, filter_id) VALUES (?, ?, ?)`),
    readCheckpoint: prepare<[string], { position: string }>(`SELECT position FROM ${checkpoints} WHERE projection = ?`),
    writeCheckpoint: db.prepare(
      `INSERT INTO ${checkpoints} (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
    ),
    loadFilter: prepare<[string], Doc>(`SELECT doc FROM ${filters} WHERE id = ?`),
    listFilters: prepare<[string], Doc>(`SELECT doc FROM ${filters} WHERE account_id = ? AND deleted = 0 ${BY_ID}`),
    getFilter: prepare<[string, string], Doc>(`SELECT doc FROM ${filters} WHERE id = ? AND account_id = ? AND deleted = 0`),
    listV1: prepare<[string], Doc>(`SELECT doc FROM ${v1} WHERE account_id = ? ${BY_ID}`),
    getV1: prepare<[string, string], Doc>(`SELECT doc FROM ${v1} WHERE id = ? AND account_id = ?`),
    findStatus: prepare<[string, string], { filter_id: string }>(`SELECT filter_id FROM ${statuses} WHERE id = ? AND account_id = ?`),
  };
}
