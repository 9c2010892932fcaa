import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { retryingStore, retryWhileBusy } from '../../src/shared/sqlite-busy.ts';
import { StoreUnavailableError } from '../../src/shared/store-unavailable.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { holdWriteLock } from '../support/sqlite-lock-holder.ts';

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** Resolves after `n` turns of the event loop: none of them can run while a busy wait holds the thread. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('SQLite on the main thread: short busy waits, asynchronous retries', () => {
  it('retries a busy call until it goes through', async () => {
    let calls = 0;
    const value = await retryWhileBusy(() => {
      calls += 1;
      if (calls < 4) throw busy();
      return 'done';
    });
    assert.equal(value, 'done');
    assert.equal(calls, 4);
  });

  it('lets any other error through at once', async () => {
    let calls = 0;
    await assert.rejects(
      retryWhileBusy(() => {
        calls += 1;
        throw Object.assign(new Error('no such table'), { code: 'SQLITE_ERROR' });
      }),
      /no such table/,
    );
    assert.equal(calls, 1);
  });

  it('gives up with the busy error once its limit has passed', async () => {
    await assert.rejects(
      retryWhileBusy(() => {
        throw busy();
      }, 20),
      /database is locked/,
    );
  });

  it("answers a store's unusable file as StoreUnavailableError, and keeps its other members", async () => {
    const store = {
      full: async () => Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })),
      name: () => 'plain',
    };
    const wrapped = retryingStore(store, 'test store', ['full']);
    await assert.rejects(
      wrapped.full(),
      (error) => error instanceof StoreUnavailableError && /test store \(SQLite\): database or disk is full/.test(error.message),
    );
    assert.equal(wrapped.name(), 'plain');
  });

  describe('the account store while another process holds the write lock on accounts.sqlite', () => {
    it('authenticates (its last-use bookkeeping gives way) and a write waits without freezing the event loop', async () => {
      const dir = scratchDir();
      const accounts = SqliteAccountStore.inDataDir(dir);
      try {
        const account = await accounts.createAccount(`locked${process.pid}`);
        const token = await accounts.createToken(account.id, ['read']);
        const lock = await holdWriteLock(join(dir, 'accounts.sqlite'));
        let write: Promise<string>;
        try {
          const grant = await accounts.authenticate(token);
          assert.equal(grant?.account.id, account.id, 'a first use while locked still authenticates');
          let settled = false;
          write = accounts.createToken(account.id, ['read']).finally(() => (settled = true));
          await turns(50);
          assert.equal(settled, false, 'the write still waits for the lock, and the event loop turned meanwhile');
        } finally {
          await lock.release();
        }
        assert.equal(typeof (await write!), 'string');
      } finally {
        await accounts.close();
      }
    });
  });
});
