import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { LastUseBatch } from '../../src/accounts/last-use-batch.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('tokens’ last uses written in groups', () => {
  it('writes every use of one event-loop turn in one call, after the turn', async () => {
    const writes: [string, string][][] = [];
    const batch = new LastUseBatch((uses) => writes.push([...uses]));
    batch.add('a', '2026-01-01T00:00:00.000Z');
    batch.add('b', '2026-01-01T00:00:01.000Z');
    batch.add('a', '2026-01-01T00:00:02.000Z');
    assert.deepEqual(writes, []);
    await nextTurn();
    assert.deepEqual(writes, [
      [
        ['a', '2026-01-01T00:00:02.000Z'],
        ['b', '2026-01-01T00:00:01.000Z'],
      ],
    ]);
    batch.add('c', '2026-01-01T00:00:03.000Z');
    batch.flush();
    await nextTurn();
    assert.deepEqual(writes.slice(1), [[['c', '2026-01-01T00:00:03.000Z']]]);
  });

  it('keeps going after a write that failed', async () => {
    let fail = true;
    const written: string[] = [];
    const batch = new LastUseBatch((uses) => {
      if (fail) throw new Error('SQLITE_BUSY');
      written.push(...uses.keys());
    });
    batch.add('a', '2026-01-01T00:00:00.000Z');
    await nextTurn();
    fail = false;
    batch.add('b', '2026-01-01T00:00:00.000Z');
    await nextTurn();
    assert.deepEqual(written, ['b']);
  });

  it('shows the uses of two tokens authenticated in one turn, to a reader in the same process and to another', async () => {
    const dir = scratchDir();
    const store = SqliteAccountStore.inDataDir(dir);
    const other = SqliteAccountStore.inDataDir(dir);
    try {
      const account = await store.createAccount(`u${Math.floor(Math.random() * 1e9)}`);
      const tokens = [await store.createToken(account.id, ['read']), await store.createToken(account.id, ['write'])];
      await Promise.all(tokens.map((token) => store.authenticate(token)));
      assert.ok((await store.listTokens(account.id)).every((t) => t.lastUsedAt !== null));
      assert.ok((await other.listTokens(account.id)).every((t) => t.lastUsedAt !== null));
    } finally {
      await store.close();
      await other.close();
    }
  });
});
