import assert from 'node:assert/strict';
import { SqliteLoginRateLimit } from '../../src/webmail/sessions/sqlite-login-rate-limit.ts';
import { openSessionDatabase } from '../../src/webmail/sessions/sqlite-sessions-schema.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('webmail login failures in SQLite: names anyone may send are kept one window only', () => {
  it('drops the windows that are over at the next failure, keeping every lock that still holds', async () => {
    const db = openSessionDatabase(scratchDir());
    let now = 1_000_000;
    const limit = new SqliteLoginRateLimit(db, { limit: 3, windowMillis: 60_000, now: () => now });
    const rows = () => db.prepare<[], { n: number }>('SELECT count(*) AS n FROM login_failures').get()!.n;
    try {
      for (let i = 0; i < 1000; i += 1) await limit.recordFailure(`local:stranger${i}`);
      for (let i = 0; i < 3; i += 1) await limit.recordFailure('local:bob');
      assert.equal(rows(), 1001);
      now += 59_999;
      await limit.recordFailure('local:carol');
      assert.equal(await limit.isLocked('local:bob'), true);
      now += 1;
      await limit.recordFailure('local:dave');
      // Every window that began a whole window ago is over: only carol's and dave's are left.
      assert.equal(rows(), 2);
      assert.equal(await limit.isLocked('local:bob'), false);
    } finally {
      db.close();
    }
  });
});
