import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SchemaTooNewError } from '../../src/shared/schema-migrations.ts';
import { sqlStep, type SqliteSchema } from '../../src/shared/sqlite-migrations.ts';
import { openSqlite } from '../../src/shared/sqlite.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const v1 = sqlStep(1, 'notes', 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
const v2 = sqlStep(2, 'notes get an author', "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'unknown'");
const v3 = sqlStep(3, 'notes by author', 'CREATE INDEX notes_by_author ON notes (author)');
const history = (...steps: SqliteSchema['steps']): SqliteSchema => ({ name: 'notes', steps });

const freshFile = () => join(scratchDir('migrations-'), 'notes.sqlite');

/** Reads a file with a plain connection, so what is seen is the file, not the adapter's view of it. */
function inspect(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      columns: db
        .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('notes')")
        .all()
        .map((c) => c.name),
      indexes: db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notes'")
        .all()
        .map((i) => i.name),
      rows: db.prepare('SELECT * FROM notes ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
}

describe('SQLite schema migrations', () => {
  it('gives a new file every step and records the last version in user_version', () => {
    const path = freshFile();
    openSqlite(path, history(v1, v2, v3)).close();
    const file = inspect(path);
    assert.equal(file.version, 3);
    assert.deepEqual(file.columns, ['id', 'text', 'author']);
    assert.deepEqual(file.indexes, ['notes_by_author']);
  });

  it('runs only the steps a file written by an older version lacks, and keeps its rows', () => {
    const path = freshFile();
    const old = openSqlite(path, history(v1));
    old.prepare('INSERT INTO notes (text) VALUES (?)').run('written by version 1');
    old.close();
    assert.equal(inspect(path).version, 1);

    // v1 ran already: running it again would fail (no IF NOT EXISTS), so this also shows it is skipped.
    openSqlite(path, history(v1, v2, v3)).close();
    const file = inspect(path);
    assert.equal(file.version, 3);
    assert.deepEqual(file.rows, [{ id: 1, text: 'written by version 1', author: 'unknown' }]);
  });

  it('changes nothing when one step fails: earlier steps of the same upgrade are rolled back too', () => {
    const path = freshFile();
    openSqlite(path, history(v1)).close();
    const broken = sqlStep(3, 'broken', 'CREATE INDEX notes_by_missing ON notes (missing_column)');
    assert.throws(() => openSqlite(path, history(v1, v2, broken)), /missing_column/);
    const file = inspect(path);
    assert.equal(file.version, 1);
    assert.deepEqual(file.columns, ['id', 'text']);
  });

  it('refuses a file written by a newer schema with one error naming the file and both versions', () => {
    const path = freshFile();
    openSqlite(path, history(v1, v2, v3)).close();
    assert.throws(
      () => openSqlite(path, history(v1, v2)),
      (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.equal(error.message.split('\n').length, 1);
        assert.match(error.message, /notes\.sqlite \(notes\) has schema version 3, but this build knows versions up to 2/);
        return true;
      },
    );
    assert.equal(inspect(path).version, 3);
  });

  it('opens an up-to-date file while another connection holds the write lock', () => {
    const path = freshFile();
    openSqlite(path, history(v1)).close();
    const writer = new Database(path);
    writer.pragma('busy_timeout = 0');
    writer.prepare('BEGIN IMMEDIATE').run();
    try {
      const reader = openSqlite(path, history(v1));
      assert.deepEqual(reader.prepare('SELECT count(*) AS n FROM notes').get(), { n: 0 });
      reader.close();
    } finally {
      writer.prepare('ROLLBACK').run();
      writer.close();
    }
  });

  it('refuses a history whose steps are not numbered 1, 2, 3, ...', () => {
    assert.throws(() => openSqlite(freshFile(), history(v1, v3)), /step 2 is numbered 3/);
  });
});
