import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openSqlite } from '../../src/shared/sqlite.ts';
import { sqlStep } from '../../src/shared/sqlite-migrations.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// Another connection writing to the file in its old (rollback) journal mode, as a second process switching
// it to WAL at the same moment does; it ends on its own, since the thread opening the file sleeps meanwhile.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.exec('BEGIN IMMEDIATE');
parentPort.postMessage('writing');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);
`;

describe('openSqlite switching a file to WAL while another connection writes to it', () => {
  it('waits for the writer instead of failing with SQLITE_BUSY at once', async () => {
    const path = join(scratchDir(), 'new.sqlite');
    const plain = new Database(path);
    plain.exec('CREATE TABLE t (x)');
    plain.close();
    const writer = new Worker(WRITER, { eval: true, workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
    const [said] = (await once(writer, 'message')) as [string];
    assert.equal(said, 'writing');

    const db = openSqlite(path, { name: 'wal-switch', steps: [sqlStep(1, 'a second table', 'CREATE TABLE u (y)')] });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      db.close();
      await writer.terminate();
    }
  });
});
