import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { watchSqliteCommits } from '../../src/events/sqlite-change-watch.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('Watching a SQLite file for commits of other connections', () => {
  it('is told of a commit by the file system, without waiting for its safety poll', async () => {
    const path = join(scratchDir(), 'events.sqlite');
    const mine = new Database(path);
    mine.pragma('journal_mode = WAL');
    mine.exec('CREATE TABLE t (x INTEGER)');
    let checks = 0;
    // No poll within the test's time: only a file-system event can call `check`.
    const stop = watchSqliteCommits(path, () => (checks += 1), 10 * 60_000);
    const other = new Database(path);
    try {
      other.prepare('INSERT INTO t VALUES (1)').run();
      await waitUntil(() => checks > 0, 'a check after the other connection committed');
      assert.ok(checks > 0);
    } finally {
      stop();
      other.close();
      mine.close();
    }
  });
});
