import type Database from 'better-sqlite3';
import { latestVersion, pendingSteps, type MigrationStep, type SchemaHistory } from './schema-migrations.ts';

/** A SQLite file's schema history; its version is kept in the file itself (`PRAGMA user_version`). */
export type SqliteSchema = SchemaHistory<Database.Database>;
export type SqliteStep = MigrationStep<Database.Database>;

/** A step that is plain SQL. */
export const sqlStep = (version: number, description: string, sql: string): SqliteStep => ({
  version,
  description,
  up: (db) => db.exec(sql),
});

const userVersion = (db: Database.Database): number => db.pragma('user_version', { simple: true }) as number;

/**
 * Brings a freshly opened file up to the newest version of its schema, or refuses it (SchemaTooNewError)
 * when a newer build has written it. All pending steps and the new version commit in one write
 * transaction: a failing step leaves the file as it was, and of several processes opening the file at
 * once (server, projector, CLI) the first upgrades it and the others, once they get the lock, find
 * nothing left to do.
 */
export function migrateSqlite(db: Database.Database, schema: SqliteSchema): { from: number; to: number } {
  const where = `${db.name} (${schema.name})`;
  const to = latestVersion(schema);
  // Outside a transaction first, so opening an up-to-date file never waits for the write lock.
  const seen = userVersion(db);
  if (pendingSteps(schema, seen, where).length === 0) return { from: seen, to };
  const upgrade = db.transaction(() => {
    const from = userVersion(db);
    for (const step of pendingSteps(schema, from, where)) {
      step.up(db);
      db.pragma(`user_version = ${step.version}`);
    }
    return from;
  });
  return { from: upgrade.immediate(), to };
}
