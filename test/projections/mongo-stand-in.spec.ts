import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient, MongoServerError } from 'mongodb';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { announcedPositionsContract } from '../contracts/announced-positions.contract.ts';
import { hostileIdsContract } from '../contracts/hostile-ids.contract.ts';
import { managedReadStoreContract, type StoreClock } from '../contracts/read-model-admin.contract.ts';
import { readStoreContract } from '../contracts/read-store.contract.ts';
import { newId } from '../../src/shared/ids.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';

/**
 * The MongoDB adapter's contracts against a wire-protocol STAND-IN (mockupdb answering from mongomock),
 * not a MongoDB server: it runs the adapter's real queries, upserts and duplicate-key paths in CI. The
 * real-server run is test/projections/mongo-read-store.spec.ts with MONGODB_URL.
 */
describe('MongoDB read store against a wire-protocol stand-in (mockupdb + mongomock, not a real server)', function () {
  this.timeout(90_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  const databases = new WeakMap<ManagedReadStore, string>();

  const fixture = () => {
    if (missing) {
      console.log(`    (MongoDB stand-in skipped: ${missing})`);
      return null;
    }
    return {
      async open() {
        const database = `cf_${randomUUID().slice(0, 8)}`;
        const store = await MongoReadStore.connect(standIn.url(), database);
        databases.set(store, database);
        return store;
      },
      async openSibling(store: ManagedReadStore, clock?: StoreClock) {
        return MongoReadStore.connect(standIn.url(), databases.get(store), clock?.now ? { serverClock: clock.now } : {});
      },
    };
  };

  readStoreContract('MongoDB stand-in', fixture);
  managedReadStoreContract('MongoDB stand-in', fixture);
  announcedPositionsContract('MongoDB stand-in', fixture);
  hostileIdsContract('MongoDB stand-in', fixture);

  describe('documents written before filters kept their keyword characters', () => {
    it('counts such a filter from its keywords, as documents written since are counted', async function () {
      if (missing) {
        console.log(`    (skipped: ${missing})`);
        return this.skip();
      }
      const database = `cf_${randomUUID().slice(0, 8)}`;
      const store = await MongoReadStore.connect(standIn.url(), database);
      const client = await MongoClient.connect(standIn.url());
      try {
        const accountId = newId();
        const filter = (keywords: string[]) => ({
          id: newId(),
          accountId,
          title: 't',
          context: ['home' as const],
          filterAction: 'warn' as const,
          expiresAt: null,
          keywords: keywords.map((keyword) => ({ id: newId(), keyword, wholeWord: true })),
          statuses: [],
          revision: 0,
          deleted: false,
        });
        const [old, recent] = [filter(['\u{1F600}x', 'cafe\u0301']), filter(['abc'])];
        await store.applyBatch({ projection: 'filters', position: 1n, views: [old, recent] });
        await client
          .db(database)
          .collection<{ _id: string }>('filters')
          .updateOne({ _id: old.id }, { $unset: { keywordCharacters: '' } });
        assert.deepEqual(await store.accountUsage(accountId, newId()), { filters: 2, keywordCharacters: 10 });
        assert.deepEqual(await store.accountUsage(accountId, recent.id), { filters: 1, keywordCharacters: 7 });
        assert.deepEqual(await store.accountUsage(accountId, old.id), { filters: 1, keywordCharacters: 3 });
      } finally {
        await client.close();
        await store.close();
      }
    });
  });

  describe('the stand-in itself', () => {
    it('refuses, as mongod does, an update whose resulting document would pass 16 MiB, and keeps the document as it was', async function () {
      if (missing) {
        console.log(`    (skipped: ${missing})`);
        return this.skip();
      }
      const client = await MongoClient.connect(standIn.url());
      try {
        const collection = client.db(`cf_${randomUUID().slice(0, 8)}`).collection<{ _id: string; a?: string; b?: string }>('big');
        const nineMiB = 'x'.repeat(9 * 1024 * 1024);
        await collection.updateOne({ _id: 'doc' }, { $set: { a: nineMiB } }, { upsert: true });
        await assert.rejects(collection.updateOne({ _id: 'doc' }, { $set: { b: nineMiB } }), (error: unknown) => {
          assert.ok(error instanceof MongoServerError, String(error));
          assert.equal(error.code, 10334);
          assert.match(error.message, /Resulting document after update is larger than 16777216/);
          return true;
        });
        const kept = await collection.findOne({ _id: 'doc' });
        assert.equal(kept?.a?.length, nineMiB.length);
        assert.equal(kept?.b, undefined);
      } finally {
        await client.close();
      }
    });
  });
});
