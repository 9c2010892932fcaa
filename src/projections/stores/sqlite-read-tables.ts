import type BetterSqlite3 from 'better-sqlite3';
import { isId } from '../../shared/ids.ts';
import type { SqliteDatabase } from '../../shared/sqlite.ts';
import type { FilterView, V1FilterRecord } from '../fold/filter-view.ts';
import { v1RecordsOf } from '../fold/filter-view.ts';
import { generationNames } from './generation-names.ts';
import type { FilterStatusLocation, KeywordLocation, ParkedEvent, ProjectionBatch } from './read-store.ts';
import type { AccountUsage } from '../../commands/filter/filter-limits.ts';
import { createReadTables, storedKeywordCharacters } from './sqlite-generation-tables.ts';

/** Ids are digit strings of varying length: shorter first gives numeric order without overflow. */
const BY_ID = 'ORDER BY length(id), id, length(filter_id), filter_id';

type Doc = { doc: string };
const parse = <T>(row: Doc | undefined): T | null => (row ? (JSON.parse(row.doc) as T) : null);

interface ParkedRow {
  position: string;
  stream: string;
  revision: string;
  type: string;
  error: string;
  parked_at: string;
}

/** The fold keeps a field's value (the same object) when an event leaves it alone. */
const sameV1Records = (a: FilterView, b: FilterView): boolean =>
  a.deleted === b.deleted && a.keywords === b.keywords && a.context === b.context && a.expiresAt === b.expiresAt && a.filterAction === b.filterAction;

/**
 * One generation's tables and prepared statements. Queries check their ids first, as the MongoDB store
 * must: whatever is not an id names no record. `store` is not a transaction by itself: the store runs
 * it inside one, together with the look-up of the current generation.
 */
export class SqliteReadTables {
  private readonly q: ReturnType<typeof queries>;

  constructor(db: SqliteDatabase, generation: number, options: { indexes?: boolean } = {}) {
    createReadTables(db, generation, options);
    this.q = queries(db, generation);
  }

  store(batch: ProjectionBatch): void {
    const q = this.q;
    for (const view of batch.views) {
      const previous = batch.previous?.get(view.id);
      if (previous === undefined || !this.storeChange(previous, view)) this.storeWhole(view);
    }
    for (const parked of batch.parked ?? []) {
      q.insertParked.run(
        batch.projection,
        parked.streamName,
        parked.revision.toString(),
        parked.position.toString(),
        parked.type,
        parked.error,
        parked.parkedAt,
      );
    }
    const current = q.readCheckpoint.get(batch.projection);
    if (!current || BigInt(current.position) < batch.position) q.writeCheckpoint.run(batch.projection, batch.position.toString());
  }

  /** The view (if newer than the stored one) with all its records written again. */
  private storeWhole(view: FilterView): void {
    const q = this.q;
    const stored = q.storedRevision.get(view.id);
    if (stored && stored.revision >= view.revision) return;
    q.upsertFilter.run(view.id, view.accountId, view.revision, view.deleted ? 1 : 0, storedKeywordCharacters(view), JSON.stringify(view));
    // A filter seen for the first time has no records to clear (they are written with it, always).
    if (stored) {
      q.clearV1.run(view.id);
      q.clearStatuses.run(view.id);
    }
    this.insertV1(view);
    if (!view.deleted) for (const status of view.statuses) q.insertStatus.run(view.id, status.id, view.accountId);
  }

  /**
   * Writes only the records that differ from `previous`, when the stored view is still `previous` (its
   * revision names it: a view is a fold of its stream up to that revision). False, having written
   * nothing, when it is not, for the caller to write the whole view instead.
   */
  private storeChange(previous: FilterView | null, view: FilterView): boolean {
    const q = this.q;
    const deleted = view.deleted ? 1 : 0;
    if (previous === null) {
      if (q.insertFilter.run(view.id, view.accountId, view.revision, deleted, storedKeywordCharacters(view), JSON.stringify(view)).changes === 0) return false;
      this.insertV1(view);
      if (!view.deleted) for (const status of view.statuses) q.insertStatus.run(view.id, status.id, view.accountId);
      return true;
    }
    if (view.revision <= previous.revision || view.accountId !== previous.accountId) return false;
    if (q.updateFilter.run(view.revision, deleted, storedKeywordCharacters(view), JSON.stringify(view), view.id, previous.revision).changes === 0) return false;
    if (!sameV1Records(previous, view)) this.replaceV1(previous, view);
    if (previous.statuses !== view.statuses || previous.deleted !== view.deleted) {
      const before = new Set(previous.deleted ? [] : previous.statuses.map((s) => s.id));
      const after = new Set(view.deleted ? [] : view.statuses.map((s) => s.id));
      for (const id of before) if (!after.has(id)) q.deleteStatus.run(view.id, id);
      for (const id of after) if (!before.has(id)) q.insertStatus.run(view.id, id, view.accountId);
    }
    return true;
  }

  /**
   * Writes the v1 records that differ from the previous view's and deletes those it no longer has: adding
   * one keyword to a filter of forty writes one row, not forty-one. Rows are keyed by keyword id; the
   * last record of an id wins, as INSERT OR REPLACE made it when a view lists an id twice.
   */
  private replaceV1(previous: FilterView, view: FilterView): void {
    const stored = new Map(previous.deleted ? [] : previous.keywords.map((k) => [k.id, k]));
    const records = new Map(v1RecordsOf(view).map((r) => [r.id, r]));
    // A record is its keyword plus the filter's settings: with the settings unchanged, an unchanged keyword is an unchanged row.
    const settingsKept =
      previous.deleted === view.deleted &&
      previous.expiresAt === view.expiresAt &&
      previous.filterAction === view.filterAction &&
      previous.context.length === view.context.length &&
      previous.context.every((context, i) => context === view.context[i]);
    for (const id of stored.keys()) if (!records.has(id)) this.q.deleteV1.run(view.id, id);
    for (const [id, record] of records) {
      const was = stored.get(id);
      if (settingsKept && was?.keyword === record.phrase && was.wholeWord === record.wholeWord) continue;
      this.q.insertV1.run(view.id, id, view.accountId, JSON.stringify(record));
    }
  }

  private insertV1(view: FilterView): void {
    for (const record of v1RecordsOf(view)) this.q.insertV1.run(record.filterId, record.id, record.accountId, JSON.stringify(record));
  }

  loadFilter(filterId: string): FilterView | null {
    if (!isId(filterId)) return null;
    return parse(this.q.loadFilter.get(filterId));
  }

  checkpoint(projection: string): bigint | null {
    const row = this.q.readCheckpoint.get(projection);
    return row ? BigInt(row.position) : null;
  }

  parkedEvents(projection: string): ParkedEvent[] {
    return this.q.listParked.all(projection).map((row) => ({
      position: BigInt(row.position),
      streamName: row.stream,
      revision: BigInt(row.revision),
      type: row.type,
      error: row.error,
      parkedAt: row.parked_at,
    }));
  }

  listFilters(accountId: string): FilterView[] {
    if (!isId(accountId)) return [];
    return this.q.listFilters.all(accountId).map((row) => JSON.parse(row.doc) as FilterView);
  }

  accountsAfter(after: string | null, limit: number): string[] {
    return this.q.accountsAfter.all(after ?? '', limit).map((row) => row.account_id);
  }

  filtersVersion(accountId: string): string {
    if (!isId(accountId)) return '0:0';
    const { views, revisions } = this.q.filtersVersion.get(accountId)!;
    return `${views}:${revisions}`;
  }

  accountUsage(accountId: string, exceptFilterId: string): AccountUsage {
    if (!isId(accountId)) return { filters: 0, keywordCharacters: 0 };
    const { filters, characters } = this.q.accountUsage.get(accountId, exceptFilterId)!;
    return { filters, keywordCharacters: characters };
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
    return parse(this.q.getV1.get(accountId, keywordId));
  }

  findKeyword(accountId: string, keywordId: string): KeywordLocation | null {
    const record = this.getV1Filter(accountId, keywordId);
    if (!record) return null;
    return { filterId: record.filterId, keyword: { id: record.id, keyword: record.phrase, wholeWord: record.wholeWord } };
  }

  findFilterStatus(accountId: string, filterStatusId: string): FilterStatusLocation | null {
    if (!isId(accountId) || !isId(filterStatusId)) return null;
    const row = this.q.findStatus.get(accountId, filterStatusId);
    if (!row) return null;
    const status = this.getFilter(accountId, row.filter_id)?.statuses.find((s) => s.id === filterStatusId);
    return status ? { filterId: row.filter_id, status } : null;
  }
}

function queries(db: SqliteDatabase, g: number) {
  const { filters, v1, statuses, checkpoints, parked } = generationNames(g);
  const prepare = <P extends unknown[], R = unknown>(sql: string): BetterSqlite3.Statement<P, R> => db.prepare<P, R>(sql);
  return {
    storedRevision: prepare<[string], { revision: number }>(`SELECT revision FROM ${filters} WHERE id = ?`),
    upsertFilter: prepare<[string, string, number, number, number, string]>(
      `INSERT INTO ${filters} (id, account_id, revision, deleted, keyword_chars, doc) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = excluded.deleted, keyword_chars = excluded.keyword_chars, doc = excluded.doc`,
    ),
    insertFilter: prepare<[string, string, number, number, number, string]>(
      `INSERT INTO ${filters} (id, account_id, revision, deleted, keyword_chars, doc) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ),
    updateFilter: prepare<[number, number, number, string, string, number]>(
      `UPDATE ${filters} SET revision = ?, deleted = ?, keyword_chars = ?, doc = ? WHERE id = ? AND revision = ?`,
    ),
    clearV1: prepare<[string]>(`DELETE FROM ${v1} WHERE filter_id = ?`),
    deleteV1: prepare<[string, string]>(`DELETE FROM ${v1} WHERE filter_id = ? AND id = ?`),
    // OR REPLACE: a view that lists one keyword id twice keeps one record instead of failing.
    insertV1: prepare<[string, string, string, string]>(`INSERT OR REPLACE INTO ${v1} (filter_id, id, account_id, doc) VALUES (?, ?, ?, ?)`),
    clearStatuses: prepare<[string]>(`DELETE FROM ${statuses} WHERE filter_id = ?`),
    deleteStatus: prepare<[string, string]>(`DELETE FROM ${statuses} WHERE filter_id = ? AND id = ?`),
    insertStatus: prepare<[string, string, string]>(`INSERT OR REPLACE INTO ${statuses} (filter_id, id, account_id) VALUES (?, ?, ?)`),
    insertParked: prepare<[string, string, string, string, string, string, string]>(
      `INSERT OR REPLACE INTO ${parked} (projection, stream, revision, position, type, error, parked_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    listParked: prepare<[string], ParkedRow>(
      `SELECT * FROM ${parked} WHERE projection = ? ORDER BY length(position), position, stream, length(revision), revision`,
    ),
    readCheckpoint: prepare<[string], { position: string }>(`SELECT position FROM ${checkpoints} WHERE projection = ?`),
    writeCheckpoint: prepare<[string, string]>(
      `INSERT INTO ${checkpoints} (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
    ),
    loadFilter: prepare<[string], Doc>(`SELECT doc FROM ${filters} WHERE id = ?`),
    listFilters: prepare<[string], Doc>(`SELECT doc FROM ${filters} WHERE account_id = ? AND deleted = 0 ORDER BY length(id), id`),
    // Along the by-account index, which holds each account's rows together.
    accountsAfter: prepare<[string, number], { account_id: string }>(
      `SELECT DISTINCT account_id FROM ${filters} WHERE account_id > ? ORDER BY account_id LIMIT ?`,
    ),
    filtersVersion: prepare<[string], { views: number; revisions: number }>(
      `SELECT count(*) AS views, coalesce(sum(revision), 0) AS revisions FROM ${filters} WHERE account_id = ?`,
    ),
    // Through the by-account index; the excluded filter is left out by its key, not read.
    accountUsage: prepare<[string, string], { filters: number; characters: number }>(
      `SELECT count(*) AS filters, coalesce(sum(keyword_chars), 0) AS characters FROM ${filters} WHERE account_id = ? AND deleted = 0 AND id <> ?`,
    ),
    getFilter: prepare<[string, string], Doc>(`SELECT doc FROM ${filters} WHERE id = ? AND account_id = ? AND deleted = 0`),
    listV1: prepare<[string], Doc>(`SELECT doc FROM ${v1} WHERE account_id = ? ${BY_ID}`),
    getV1: prepare<[string, string], Doc>(`SELECT doc FROM ${v1} WHERE account_id = ? AND id = ? ${BY_ID} LIMIT 1`),
    findStatus: prepare<[string, string], { filter_id: string }>(`SELECT filter_id FROM ${statuses} WHERE account_id = ? AND id = ? ${BY_ID} LIMIT 1`),
  };
}
