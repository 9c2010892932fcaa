import { keywordCharacters } from '../../commands/filter/filter-limits.ts';
import type { SqliteDatabase } from '../../shared/sqlite.ts';
import type { FilterView } from '../fold/filter-view.ts';
import { generationNames, READ_MODEL_NAMES } from './generation-names.ts';

/** The newest layout of one generation's tables; a new generation is made from it as it is. */
function tablesOf(generation: number): string {
  const { filters, v1, statuses, checkpoints, parked } = generationNames(generation);
  return `
    CREATE TABLE IF NOT EXISTS ${filters} (
      id TEXT PRIMARY KEY, account_id TEXT NOT NULL, revision INTEGER NOT NULL, deleted INTEGER NOT NULL,
      keyword_chars INTEGER NOT NULL DEFAULT 0, doc TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${v1} (
      filter_id TEXT NOT NULL, id TEXT NOT NULL, account_id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (filter_id, id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${statuses} (
      filter_id TEXT NOT NULL, id TEXT NOT NULL, account_id TEXT NOT NULL, PRIMARY KEY (filter_id, id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${checkpoints} (projection TEXT PRIMARY KEY, position TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS ${parked} (
      projection TEXT NOT NULL, stream TEXT NOT NULL, revision TEXT NOT NULL, position TEXT NOT NULL,
      type TEXT NOT NULL, error TEXT NOT NULL, parked_at TEXT NOT NULL, PRIMARY KEY (projection, stream, revision)
    );
  `;
}

/** The indexes the queries by account use; the projector itself never needs them. */
function indexesOf(generation: number): string[] {
  const { filters, v1, statuses } = generationNames(generation);
  return [
    `CREATE INDEX IF NOT EXISTS ${filters}_by_account ON ${filters} (account_id, deleted)`,
    `CREATE INDEX IF NOT EXISTS ${v1}_by_account_id ON ${v1} (account_id, id)`,
    `CREATE INDEX IF NOT EXISTS ${statuses}_by_account_id ON ${statuses} (account_id, id)`,
  ];
}

const layoutOf = (generation: number): string => `${tablesOf(generation)}${indexesOf(generation).join(';\n')};`;

/**
 * Creates one generation's tables in one write transaction (the file's schema steps keep older ones
 * current). Without `indexes`, for a generation about to be filled: building each index once, from the
 * filled table (`createReadIndexes`), costs a fraction of keeping it up to date row by row.
 */
export function createReadTables(db: SqliteDatabase, generation: number, { indexes = true }: { indexes?: boolean } = {}): void {
  const create = db.transaction(() => db.exec(indexes ? layoutOf(generation) : tablesOf(generation)));
  if (db.inTransaction) create();
  else create.immediate();
}

/** Builds the indexes a generation lacks, one write transaction each, so other writers wait for one index at most. */
export function createReadIndexes(db: SqliteDatabase, generation: number): void {
  for (const index of indexesOf(generation)) {
    const create = db.transaction(() => db.exec(index));
    if (db.inTransaction) create();
    else create.immediate();
  }
}

export function dropReadTables(db: SqliteDatabase, generation: number): void {
  for (const name of Object.values(generationNames(generation))) db.exec(`DROP TABLE IF EXISTS ${name}`);
}

const GENERATION_TABLE = new RegExp(`^(?:${READ_MODEL_NAMES.join('|')})(?:_g(\\d+))?$`);

/** Every generation of which the file holds at least one table, in ascending order. */
export function storedGenerations(db: SqliteDatabase): number[] {
  const found = new Set<number>();
  for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
    const match = GENERATION_TABLE.exec(name);
    if (match) found.add(Number(match[1] ?? 0));
  }
  return [...found].sort((a, b) => a - b);
}

/** True when `table` exists with `id` alone as its primary key: the layout before records were keyed by filter. */
function keyedByIdAlone(db: SqliteDatabase, table: string): boolean {
  const columns = db.prepare<[], { name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info('${table}')`).all();
  const key = columns.filter((c) => c.pk > 0).map((c) => c.name);
  return key.length === 1 && key[0] === 'id';
}

/**
 * Schema step of `read-models.sqlite`: v1 records and status look-ups were keyed by their own id alone,
 * so two filters holding one keyword id failed the projection forever (UNIQUE constraint). Every stored
 * generation gets them keyed by filter, rows kept, and the tables and indexes it lacks. The layout is
 * looked at, not assumed: some files at version 1 were already rebuilt by a build that did it on open.
 */
export function keyRecordsByFilter(db: SqliteDatabase): void {
  for (const generation of storedGenerations(db)) {
    const { v1, statuses } = generationNames(generation);
    for (const [table, columns] of [
      [v1, 'filter_id, id, account_id, doc'],
      [statuses, 'filter_id, id, account_id'],
    ] as const) {
      if (!keyedByIdAlone(db, table)) continue;
      db.exec(`ALTER TABLE ${table} RENAME TO ${table}_old_layout`);
      db.exec(layoutOf(generation));
      db.exec(`INSERT OR REPLACE INTO ${table} (${columns}) SELECT ${columns} FROM ${table}_old_layout; DROP TABLE ${table}_old_layout;`);
    }
    db.exec(layoutOf(generation));
  }
}

/** What a stored view counts towards its account's keyword characters: nothing once deleted. */
export const storedKeywordCharacters = (view: Pick<FilterView, 'deleted' | 'keywords'>): number => (view.deleted ? 0 : keywordCharacters(view.keywords));

/**
 * Schema step of `read-models.sqlite`: each filter row keeps its keyword characters, so the per-account
 * limits sum a column instead of parsing every view of the account. Rows stored before get theirs
 * counted here from their view, by the same function the projector uses.
 */
export function countKeywordCharacters(db: SqliteDatabase): void {
  for (const generation of storedGenerations(db)) {
    const { filters } = generationNames(generation);
    const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${filters}')`).all();
    if (columns.length === 0 || columns.some((c) => c.name === 'keyword_chars')) continue;
    db.exec(`ALTER TABLE ${filters} ADD COLUMN keyword_chars INTEGER NOT NULL DEFAULT 0`);
    const update = db.prepare<[number, number]>(`UPDATE ${filters} SET keyword_chars = ? WHERE rowid = ?`);
    // Pages of rows, not one iterator: the connection cannot update while it iterates.
    const page = db.prepare<[number], { rowid: number; doc: string }>(
      `SELECT rowid, doc FROM ${filters} WHERE rowid > ? AND deleted = 0 ORDER BY rowid LIMIT 500`,
    );
    for (let rows = page.all(0); rows.length > 0; rows = page.all(rows.at(-1)!.rowid)) {
      for (const row of rows) update.run(storedKeywordCharacters(JSON.parse(row.doc) as FilterView), row.rowid);
    }
  }
}
