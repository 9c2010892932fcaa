import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { openSqlite } from '../../src/shared/sqlite.ts';
import { sqlStep } from '../../src/shared/sqlite-migrations.ts';
import { WalCheckpointer } from '../../src/shared/wal-checkpointer.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const PACE = { transactionsPerCheckpoint: 4, maxBacklog: 8 };

function openFile() {
  const db = openSqlite(join(scratchDir(), 'wal.sqlite'), { name: 'wal', steps: [sqlStep(1, 'a table', 'CREATE TABLE t (x)')] });
  const insert = db.prepare('INSERT INTO t VALUES (1)');
  return { db, write: () => insert.run() };
}

const threadOf = (checkpoints: WalCheckpointer) => (checkpoints as unknown as { worker: NodeJS.EventEmitter | null }).worker;

describe('WalCheckpointer: its thread starts with the store, and writers wait only for one that fell behind', () => {
  it('has its thread starting before any transaction, so that it is up by the time writers could pass the backlog', async () => {
    const { db } = openFile();
    const checkpoints = new WalCheckpointer(db, PACE);
    try {
      const thread = threadOf(checkpoints);
      assert.ok(thread, 'a thread at once');
      await once(thread, 'online');
    } finally {
      await checkpoints.close();
      db.close();
    }
  });

  it('started at the first checkpoint instead when asked to (a store only a projector writes)', async () => {
    const { db, write } = openFile();
    const checkpoints = new WalCheckpointer(db, PACE, false);
    try {
      for (let i = 0; i < PACE.transactionsPerCheckpoint - 1; i += 1) {
        write();
        checkpoints.wrote();
      }
      assert.equal(threadOf(checkpoints), null, 'no thread before a checkpoint is due');
      write();
      checkpoints.wrote();
      assert.ok(threadOf(checkpoints), 'a thread for the first checkpoint');
    } finally {
      await checkpoints.close();
      db.close();
    }
  });

  it('holds writers back past the backlog until a checkpoint covers them, then lets them go', async () => {
    const { db, write } = openFile();
    const checkpoints = new WalCheckpointer(db, PACE);
    try {
      for (let i = 0; i < PACE.maxBacklog; i += 1) {
        assert.equal(checkpoints.room(), undefined, `transaction ${i} is within the backlog`);
        write();
        checkpoints.wrote();
      }
      const waiting = checkpoints.room();
      assert.ok(waiting instanceof Promise, 'a writer past the backlog waits');
      await waiting;
      assert.equal(checkpoints.room(), undefined, 'and goes on once the thread has caught up');
    } finally {
      await checkpoints.close();
      db.close();
    }
  });
});
