import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { fencedReadStore } from '../../src/projections/runtime/fenced-read-store.ts';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { FencedOffError, type Fence } from '../../src/shared/fencing.ts';
import { newId } from '../../src/shared/ids.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { waitUntil } from '../support/wait-until.ts';
import { pauseNextBulkWrite } from '../support/paused-bulk-write.ts';

/** Short, so the store's own clock expires it during a test; waits end on the store's answer, not a timer. */
const SHORT_LEASE_MS = 300;

const view = (id: string, accountId: string, revision: number, phrases: string[]): FilterView => ({
  id,
  accountId,
  title: 't',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  // Keyword ids follow the phrase, so a keyword kept from one revision to the next keeps its id.
  keywords: phrases.map((keyword, n) => ({ id: `${id.slice(0, 10)}${n + 1}`, keyword, wholeWord: true })),
  statuses: [],
  revision,
  deleted: false,
});

describe('Fenced projectors on the MongoDB stand-in (mockupdb + mongomock, not a real server)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  const opened: MongoReadStore[] = [];
  let database: string;

  const connect = async () => {
    const store = await MongoReadStore.connect(standIn.url(), database);
    opened.push(store);
    return store;
  };

  /** Takes the projector lease for `owner` and answers its fencing token. */
  const lease = async (store: MongoReadStore, owner: string, ttlMs: number): Promise<Fence> => {
    assert.equal(await store.tryLease(FILTERS_LEASE, owner, ttlMs), true, `${owner} takes the lease`);
    const holder = await store.leaseHolder(FILTERS_LEASE);
    assert.equal(holder?.owner, owner);
    return { lease: FILTERS_LEASE, token: holder?.fence ?? assert.fail('the MongoDB store issues fencing tokens') };
  };

  beforeEach(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    database = `cf_fence_${randomUUID().slice(0, 8)}`;
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('issues a larger fencing token on every acquisition, a release included, and keeps it on renewal', async () => {
    const store = await connect();
    const first = await lease(store, 'a', 60_000);
    assert.deepEqual(await lease(store, 'a', 60_000), first, 'a renewal keeps the token');
    await store.releaseLease(FILTERS_LEASE, 'a');
    const second = await lease(store, 'b', 60_000);
    assert.ok(second.token > first.token, `${second.token} > ${first.token}`);
    assert.equal(await store.takeOverLease(FILTERS_LEASE, 'b', 'c', 60_000), true);
    assert.ok((await store.leaseHolder(FILTERS_LEASE))!.fence! > second.token);
    // A lease document deleted (by hand, or by an older release giving the lease back) does not reset the count.
    const third = (await store.leaseHolder(FILTERS_LEASE))!.fence!;
    const client = await MongoClient.connect(standIn.url());
    try {
      await client.db(database).collection<{ _id: string }>('projection_leases').deleteOne({ _id: FILTERS_LEASE });
    } finally {
      await client.close();
    }
    const fourth = await lease(store, 'd', 60_000);
    assert.ok(fourth.token > third, `${fourth.token} > ${third}`);
  });

  it("says the server's time with the holder, so nobody judges the lease by a process clock", async () => {
    const store = await connect();
    const serverTime = Date.now() - 30_000;
    const sibling = await MongoReadStore.connect(standIn.url(), database, { serverClock: () => serverTime });
    opened.push(sibling);
    await lease(sibling, 'a', 5000);
    const holder = await sibling.leaseHolder(FILTERS_LEASE);
    assert.deepEqual([holder?.storeTime, holder?.expiresAt], [serverTime, serverTime + 5000]);
    // Without a stand-in clock: the stand-in's own (hello's localTime), which is this host's here.
    const before = Date.now();
    const real = await store.leaseHolder(FILTERS_LEASE);
    assert.ok(real!.storeTime! >= before - 1000 && real!.storeTime! <= Date.now() + 1000, 'the server clock answered');
  });

  it("refuses and counts a former holder's late write: B's revision 6 stands, and the view never goes back", async () => {
    const [a, b] = [await connect(), await connect()];
    const accountId = newId();
    const filterId = newId();
    const refused: FencedOffError[] = [];
    const fenceA = await lease(a, 'projector-a', SHORT_LEASE_MS);
    const writesA = fencedReadStore(a, fenceA, (error) => refused.push(error));
    await writesA.applyBatch({ projection: FILTERS_PROJECTION, position: 4n, views: [view(filterId, accountId, 4, ['alpha', 'beta'])] });
    await writesA.markAnnounced('nats', 4n);

    // A pauses after its checks and its read of the stored revisions, before it writes revision 5.
    const pause = pauseNextBulkWrite();
    const late = writesA.applyBatch({ projection: FILTERS_PROJECTION, position: 5n, views: [view(filterId, accountId, 5, ['alpha', 'beta'])] });
    try {
      await pause.paused;
      // The store's clock expires A's lease; B takes it over and stores revision 6, which removes "beta".
      await waitUntil(() => b.tryLease(FILTERS_LEASE, 'projector-b', 60_000), "A's lease expiring by the store's clock");
      const fenceB = { lease: FILTERS_LEASE, token: (await b.leaseHolder(FILTERS_LEASE))!.fence! };
      assert.ok(fenceB.token > fenceA.token);
      const writesB = fencedReadStore(b, fenceB, () => assert.fail('B is the holder'));
      await writesB.applyBatch({ projection: FILTERS_PROJECTION, position: 6n, views: [view(filterId, accountId, 6, ['alpha'])] });
      await writesB.markAnnounced('nats', 6n);
    } finally {
      pause.release();
      pause.restore();
    }
    await assert.rejects(late, FencedOffError);
    await assert.rejects(writesA.markAnnounced('nats', 5n), FencedOffError, "the announcer's checkpoint is fenced too");
    await assert.rejects(writesA.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 7n }), FencedOffError);
    assert.equal(refused.length, 3, 'each refusal is heard (and counted by the caller)');

    const stored = await b.getFilter(accountId, filterId);
    assert.equal(stored?.revision, 6);
    assert.deepEqual(
      stored?.keywords.map((k) => k.keyword),
      ['alpha'],
    );
    assert.deepEqual(
      (await b.listV1Filters(accountId)).map((record) => record.phrase),
      ['alpha'],
      'no v1 record of the removed keyword came back',
    );
    assert.equal(await b.checkpoint(FILTERS_PROJECTION), 6n);
    assert.deepEqual(await b.announced('nats'), { position: 6n });
  });

  it('never lets an older revision written late bring back a removed record, fenced or not', async () => {
    const [a, b] = [await connect(), await connect()];
    const accountId = newId();
    const filterId = newId();
    await a.applyBatch({ projection: FILTERS_PROJECTION, position: 4n, views: [view(filterId, accountId, 4, ['alpha', 'beta'])] });
    const pause = pauseNextBulkWrite();
    const late = a.applyBatch({ projection: FILTERS_PROJECTION, position: 5n, views: [view(filterId, accountId, 5, ['alpha', 'beta'])] });
    try {
      await pause.paused;
      await b.applyBatch({ projection: FILTERS_PROJECTION, position: 6n, views: [view(filterId, accountId, 6, ['alpha'])] });
    } finally {
      pause.release();
      pause.restore();
    }
    await late;
    const stored = await b.getFilter(accountId, filterId);
    assert.equal(stored?.revision, 6);
    assert.deepEqual(
      stored?.keywords.map((k) => k.keyword),
      ['alpha'],
    );
    assert.deepEqual(
      (await b.listV1Filters(accountId)).map((record) => record.phrase),
      ['alpha'],
    );
  });

  it("assembles a view only from records of its filter's revision or newer", async () => {
    const store = await connect();
    const accountId = newId();
    const filterId = newId();
    await store.applyBatch({ projection: FILTERS_PROJECTION, position: 6n, views: [view(filterId, accountId, 6, ['alpha'])] });
    // What a former writer's upsert leaves when it lands after its successor's clean-up and before its own.
    const client = await MongoClient.connect(standIn.url());
    try {
      const names = await client.db(database).listCollections({}, { nameOnly: true }).toArray();
      const collection = names.map((n) => n.name).find((name) => name.startsWith('v1_filters'));
      assert.ok(collection, 'the v1 records collection');
      const record = { accountId, filterId, filterIdLength: filterId.length, filterRevision: 5, idLength: 11, order: 1 };
      const stale = { ...record, record: { id: `${filterId.slice(0, 10)}2`, accountId, filterId, phrase: 'beta', wholeWord: true } };
      await client
        .db(database)
        .collection<{ _id: string }>(collection)
        .insertOne({ _id: `${filterId}:${stale.record.id}`, ...stale });
    } finally {
      await client.close();
    }
    assert.deepEqual(
      (await store.getFilter(accountId, filterId))?.keywords.map((k) => k.keyword),
      ['alpha'],
    );
    assert.deepEqual(
      (await store.loadFilter(filterId))?.keywords.map((k) => k.keyword),
      ['alpha'],
    );
  });
});
