import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { writeLogFixture, type LogFixture } from '../../bench/log-fixture.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { checkReadModels } from '../../src/projections/admin/read-model-check.ts';
import type { Drift } from '../../src/projections/admin/read-model-diff.ts';
import { fillGeneration } from '../../src/projections/runtime/fill-generation.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { eachStoreLocation, type StoreLocation } from '../support/store-locations.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const openReads = (at: StoreLocation): Promise<ManagedReadStore> =>
  at.mongodbUrl ? MongoReadStore.connect(at.mongodbUrl, at.mongoDatabase) : Promise.resolve(SqliteReadStore.inDataDir(at.dataDir));

/** Changes one stored v2 row's title and one v1 row's phrase behind the projector's back, as a bad write or a hand edit would. */
async function tamper(at: StoreLocation, filterId: string, keywordId: string): Promise<void> {
  if (!at.mongodbUrl) {
    const db = new Database(join(at.dataDir, 'read-models.sqlite'));
    db.prepare(`UPDATE filters SET doc = json_set(doc, '$.title', 'tampered') WHERE id = ?`).run(filterId);
    db.prepare(`UPDATE v1_filters SET doc = json_set(doc, '$.phrase', 'tampered') WHERE filter_id = ? AND id = ?`).run(filterId, keywordId);
    db.close();
    return;
  }
  const client = await MongoClient.connect(at.mongodbUrl);
  const db = client.db(at.mongoDatabase);
  await db.collection('filters').updateOne({ _id: filterId as never }, { $set: { 'view.title': 'tampered' } });
  await db.collection('v1_filters').updateOne({ _id: `${filterId}:${keywordId}` as never }, { $set: { 'record.phrase': 'tampered' } });
  await client.close();
}

/** Loses every live row of one account, as a bad restore of the read models would. */
async function loseAccount(at: StoreLocation, accountId: string): Promise<void> {
  if (!at.mongodbUrl) {
    const db = new Database(join(at.dataDir, 'read-models.sqlite'));
    for (const table of ['filters', 'v1_filters']) db.prepare(`DELETE FROM ${table} WHERE account_id = ?`).run(accountId);
    db.close();
    return;
  }
  const client = await MongoClient.connect(at.mongodbUrl);
  const db = client.db(at.mongoDatabase);
  for (const name of ['filters', 'v1_filters']) await db.collection(name).deleteMany({ accountId });
  await client.close();
}

eachStoreLocation((name, fixture) => {
  describe(`verify --read-models, in process: ${name}`, function () {
    this.timeout(120_000);
    let at: StoreLocation;
    let log: LogFixture;
    let events: SqliteEventStore;
    let reads: ManagedReadStore;

    beforeEach(async function () {
      const location = fixture();
      if (!location) return this.skip();
      at = location.fresh();
      // Three accounts, their filters' events spread over the log, projected as the live projector does.
      log = await writeLogFixture(at.dataDir, 600, 200);
      events = SqliteEventStore.inDataDir(at.dataDir);
      reads = await openReads(at);
      await fillGeneration(events, reads, log.lastPosition);
    });

    afterEach(async () => {
      await Promise.all([events?.close(), reads?.close()]);
    });

    const check = async (store: ManagedReadStore = reads) => {
      const found: Drift[] = [];
      const report = await checkReadModels(events, store, { onDrift: (drift) => void found.push(drift) });
      return { found, report };
    };

    it('finds no drift in read models the projector built, and leaves no scratch generation behind', async () => {
      const before = await reads.currentGeneration();
      const { found, report } = await check();
      assert.deepEqual(found, []);
      assert.equal(report.position, log.lastPosition);
      assert.equal(report.accounts, 3);
      assert.ok(report.filters > 30, `${report.filters} filters`);
      assert.equal(await reads.currentGeneration(), before);
      assert.equal(await reads.pendingGeneration(), null);
      const scratch = await reads.createScratchGeneration();
      assert.deepEqual(await reads.generation(scratch - 1).accountsAfter(null, 10), [], 'the one it used was dropped');
    });

    it('names the changed v2 row and v1 row exactly: account, filter, model, record and field', async () => {
      const [filter] = await reads.listFilters(log.accountId);
      const keyword = filter!.keywords[0]!;
      await tamper(at, filter!.id, keyword.id);
      const { found, report } = await check();
      const expected: Drift[] = [
        { account: log.accountId, filter: filter!.id, model: 'v2', field: 'title', live: 'tampered', log: filter!.title },
        // MongoDB builds a v2 view's keywords from the v1 records, so the changed v1 record shows there too.
        ...(at.mongodbUrl
          ? [
              {
                account: log.accountId,
                filter: filter!.id,
                model: 'v2' as const,
                field: `keywords[${keyword.id}].keyword`,
                live: 'tampered',
                log: keyword.keyword,
              },
            ]
          : []),
        { account: log.accountId, filter: filter!.id, model: 'v1', keyword: keyword.id, field: 'phrase', live: 'tampered', log: keyword.keyword },
      ];
      assert.deepEqual(found, expected);
      assert.equal(report.differences, expected.length);
    });

    it('names every row of an account the live read models lost entirely', async () => {
      const [views, records] = [await reads.listFilters(log.accountId), await reads.listV1Filters(log.accountId)];
      await loseAccount(at, log.accountId);
      const { found, report } = await check();
      assert.equal(report.accounts, 3);
      assert.deepEqual(found, [
        ...views.map((view) => ({ account: log.accountId, filter: view.id, model: 'v2', field: 'exists', live: false, log: true })),
        ...records.map((r) => ({ account: log.accountId, filter: r.filterId, model: 'v1', keyword: r.id, field: 'exists', live: false, log: true })),
      ]);
    });

    it('takes what the live projector stored during the check for what it is, not for drift', async () => {
      const [filter] = await reads.listFilters(log.accountId);
      let moved = false;
      // The first time the check reads the account, the service renames the filter and its projector stores it.
      const live = new Proxy(reads, {
        get(target, property) {
          const value = Reflect.get(target, property) as unknown;
          if (property !== 'listFilters') return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
          return async (account: string) => {
            if (account === log.accountId && !moved) {
              moved = true;
              const stream = await events.readStream(filterStream(filter!.id));
              const data = {
                filterId: filter!.id,
                title: 'renamed during the check',
                context: ['home'],
                action: 'warn',
                expiresAt: null,
                updatedAt: new Date().toISOString(),
              };
              const metadata = eventMetadata({ accountId: log.accountId });
              const { position } = await events.appendToStream(filterStream(filter!.id), [{ type: 'FilterUpdated', data, metadata }], stream.at(-1)!.revision);
              await fillGeneration(events, target, position);
            }
            return target.listFilters(account);
          };
        },
      });
      const { found, report } = await check(live);
      assert.equal(moved, true);
      assert.deepEqual(found, []);
      assert.equal(report.position, await reads.checkpoint(FILTERS_PROJECTION));
      assert.ok(report.position! > log.lastPosition);
    });
  });
});
