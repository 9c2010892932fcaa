import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../../src/shared/ids.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { announcedPositionsContract } from '../contracts/announced-positions.contract.ts';
import { hostileIdsContract } from '../contracts/hostile-ids.contract.ts';
import { managedReadStoreContract } from '../contracts/read-model-admin.contract.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const dirs = new WeakMap<ManagedReadStore, string>();

readStoreContract('SQLite', () => ({
  async open() {
    return SqliteReadStore.inDataDir(scratchDir());
  },
}));

managedReadStoreContract('SQLite', () => ({
  async open() {
    const dir = scratchDir();
    const store = SqliteReadStore.inDataDir(dir);
    dirs.set(store, dir);
    return store;
  },
  async openSibling(store, clock) {
    return SqliteReadStore.inDataDir(dirs.get(store)!, clock);
  },
}));

announcedPositionsContract('SQLite', () => ({
  async open() {
    const dir = scratchDir();
    const store = SqliteReadStore.inDataDir(dir);
    dirs.set(store, dir);
    return store;
  },
  async openSibling(store, clock) {
    return SqliteReadStore.inDataDir(dirs.get(store)!, clock);
  },
}));

hostileIdsContract('SQLite', () => ({
  async open() {
    return SqliteReadStore.inDataDir(scratchDir());
  },
}));

describe('SQLite read store: tables written before records were keyed by filter', () => {
  it('are rebuilt in place, rows kept, and then take two filters sharing a keyword id', async () => {
    const dir = scratchDir();
    const old = new Database(join(dir, 'read-models.sqlite'));
    old.exec(`
      CREATE TABLE v1_filters (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL, doc TEXT NOT NULL);
      CREATE INDEX v1_filters_by_account ON v1_filters (account_id);
      CREATE TABLE filter_statuses (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, filter_id TEXT NOT NULL);
    `);
    const [accountId, filterId, keywordId, statusId] = [newId(), newId(), newId(), newId()];
    const record = { id: keywordId, accountId, filterId, phrase: 'old', context: ['home'], wholeWord: true, expiresAt: null, irreversible: false };
    old.prepare('INSERT INTO v1_filters VALUES (?, ?, ?, ?)').run(keywordId, accountId, filterId, JSON.stringify(record));
    old.prepare('INSERT INTO filter_statuses VALUES (?, ?, ?)').run(statusId, accountId, filterId);
    old.close();

    const store = SqliteReadStore.inDataDir(dir);
    try {
      assert.deepEqual(await store.listV1Filters(accountId), [record]);
      const stranger = newId();
      const view = {
        id: newId(),
        accountId: stranger,
        title: 't',
        context: ['home' as const],
        filterAction: 'warn' as const,
        expiresAt: null,
        keywords: [{ id: keywordId, keyword: 'new', wholeWord: true }],
        statuses: [{ id: statusId, statusId: '1' }],
        revision: 0,
        deleted: false,
      };
      await store.saveFilter(view, { projection: 'p', position: 1n });
      assert.deepEqual(
        (await store.listV1Filters(accountId)).map((r) => r.phrase),
        ['old'],
      );
      assert.deepEqual(
        (await store.listV1Filters(stranger)).map((r) => r.phrase),
        ['new'],
      );
      assert.equal((await store.findFilterStatus(stranger, statusId))?.filterId, view.id);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite read store: a new generation is indexed from the start', () => {
  const indexes = (dir: string, generation: number): string[] => {
    const db = new Database(join(dir, 'read-models.sqlite'), { readonly: true });
    try {
      return db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_by_account%' ORDER BY name")
        .all()
        .map((row) => row.name)
        .filter((name) => name.includes(`_g${generation}_`));
    } finally {
      db.close();
    }
  };

  it('is made with its indexes by account, so that marking it pending builds none while the live projector waits for the write lock', async () => {
    const dir = scratchDir();
    const store = SqliteReadStore.inDataDir(dir);
    try {
      const generation = await store.createGeneration();
      assert.equal(indexes(dir, generation).length, 3);
      const accountId = newId();
      const view = {
        id: newId(),
        accountId,
        title: 't',
        context: ['home' as const],
        filterAction: 'warn' as const,
        expiresAt: null,
        keywords: [{ id: newId(), keyword: 'k', wholeWord: true }],
        statuses: [{ id: newId(), statusId: '1' }],
        revision: 0,
        deleted: false,
      };
      const filled = store.generation(generation);
      await filled.saveFilter(view, { projection: 'p', position: 1n });
      const answers = async () => [
        await filled.listFilters(accountId),
        await filled.listV1Filters(accountId),
        await filled.findFilterStatus(accountId, view.statuses[0]!.id),
      ];
      const filledAnswers = await answers();
      await store.markPending(generation);
      assert.equal(indexes(dir, generation).length, 3);
      assert.deepEqual(await answers(), filledAnswers);
      assert.equal((filledAnswers[0] as unknown[]).length, 1);
      assert.equal(await store.swapIn(generation), true);
      assert.equal(indexes(dir, generation).length, 3);
    } finally {
      await store.close();
    }
  });
});

describe("SQLite read store: leases by SQLite's clock", () => {
  it("judges a lease by SQLite's own time, not by this process's clock, 30 s ahead", async () => {
    const processClock = Date.now;
    const before = processClock();
    let store: SqliteReadStore;
    try {
      // This process's clock runs 30 s ahead from its start; SQLite asks the operating system itself.
      Date.now = () => processClock() + 30_000;
      store = SqliteReadStore.inDataDir(scratchDir());
      assert.equal(await store.tryLease('lease', 'a', 5000), true);
    } finally {
      Date.now = processClock;
    }
    const expiresAt = (await store.leaseHolder('lease'))!.expiresAt;
    // Granted between `before` and now by the real clock (SQLite's ms are truncated: a 1 ms allowance).
    assert.ok(expiresAt >= before + 5000 - 1 && expiresAt <= processClock() + 5000, `expires at ${expiresAt - before} ms after the request`);
    await store.close();
  });
});

describe('SQLite read store: the projector’s commits never checkpoint on the event loop', function () {
  this.timeout(120_000);

  it('keeps read-models.sqlite-wal under 8 MB over 3,000 batches of one view each, checkpointed by its thread (SQLite alone: at 16 MB, in a commit)', async () => {
    const dir = scratchDir();
    const path = join(dir, 'read-models.sqlite');
    const walBytes = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    const store = SqliteReadStore.inDataDir(dir);
    const projection = `p-${newId()}`;
    const accountId = newId();
    let largest = 0;
    try {
      for (let i = 0; i < 3000; i += 1) {
        const view = {
          id: newId(),
          accountId,
          title: `filter ${i} ${'x'.repeat(200)}`,
          context: ['home' as const],
          filterAction: 'warn' as const,
          expiresAt: null,
          keywords: [{ id: newId(), keyword: `keyword ${i}`, wholeWord: true }],
          statuses: [],
          revision: 0,
          deleted: false,
        };
        await store.applyBatch({ projection, position: BigInt(i + 1), views: [view] });
        // One batch per turn, as the projector commits them: the checkpoint thread's answers arrive between.
        await new Promise((resolve) => setImmediate(resolve));
        if (i % 100 === 0) largest = Math.max(largest, walBytes());
      }
      largest = Math.max(largest, walBytes());
      assert.equal((await store.listFilters(accountId)).length, 3000);
    } finally {
      await store.close();
    }
    console.log(`      largest WAL seen: ${(largest / 1024 / 1024).toFixed(2)} MB`);
    assert.ok(largest < 8 * 1024 * 1024, `the WAL grew to ${largest} bytes`);
  });
});
