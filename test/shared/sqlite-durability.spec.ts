import assert from 'node:assert/strict';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { SqliteMailStore } from '../../src/webmail/mail/sqlite-mail-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// Read back from each open connection (PRAGMA synchronous: 2 = FULL, 1 = NORMAL), not taken from what was asked.
describe('SQLite durability of the embedded stores', () => {
  it('the event store keeps every acknowledged append through a power cut: WAL, synchronous FULL', async () => {
    const store = SqliteEventStore.inDataDir(scratchDir());
    try {
      assert.deepEqual(store.durability(), { journalMode: 'wal', synchronous: 'full' });
    } finally {
      await store.close();
    }
  });

  it('the mail store keeps every delivered message: WAL, synchronous FULL', async () => {
    const store = SqliteMailStore.inDataDir(scratchDir());
    try {
      assert.deepEqual(store.durability(), { journalMode: 'wal', synchronous: 'full' });
    } finally {
      await store.close();
    }
  });

  it('the account store keeps every account and token: WAL, synchronous FULL', async () => {
    const store = SqliteAccountStore.inDataDir(scratchDir());
    try {
      assert.deepEqual(store.durability(), { journalMode: 'wal', synchronous: 'full' });
    } finally {
      await store.close();
    }
  });

  it('the read store, rebuilt from the log after a crash, trades that for speed: WAL, synchronous NORMAL', async () => {
    const store = SqliteReadStore.inDataDir(scratchDir());
    try {
      assert.deepEqual(store.durability(), { journalMode: 'wal', synchronous: 'normal' });
    } finally {
      await store.close();
    }
  });
});
