import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import type { FilterView } from '../../src/projections/filter-view.ts';
import type { ReadStore } from '../../src/projections/read-store.ts';
import { contractSubject } from './contract-subject.ts';

export interface ReadStoreFixture {
  open(): Promise<ReadStore>;
}

function view(overrides: Partial<FilterView> = {}): FilterView {
  return {
    id: newId(),
    accountId: newId(),
    title: 'magic',
    context: ['home'],
    filterAction: 'warn',
    expiresAt: null,
    keywords: [{ id: newId(), keyword: 'magic', wholeWord: true }],
    statuses: [{ id: newId(), statusId: '109' }],
    revision: 0,
    deleted: false,
    ...overrides,
  };
}

const at = (position: bigint, projection = `p-${newId()}`) => ({ projection, position });

/** Every behaviour the projector and the queries rely on; run against each ReadStore adapter. */
export function readStoreContract(name: string, fixture: () => ReadStoreFixture | null): void {
  describe(`ReadStore contract: ${name}`, function () {
    const given = contractSubject<ReadStore, ReadStoreFixture>(fixture);

    it('stores a filter view and answers it to its account only', async () => {
      const filter = view();
      await given.store.saveFilter(filter, at(1n));
      assert.deepEqual(await given.store.loadFilter(filter.id), filter);
      assert.deepEqual(await given.store.getFilter(filter.accountId, filter.id), filter);
      assert.deepEqual(await given.store.listFilters(filter.accountId), [filter]);
      const stranger = newId();
      assert.equal(await given.store.getFilter(stranger, filter.id), null);
      assert.deepEqual(await given.store.listFilters(stranger), []);
      assert.equal(await given.store.findKeyword(stranger, filter.keywords[0]!.id), null);
      assert.equal(await given.store.findFilterStatus(stranger, filter.statuses[0]!.id), null);
      assert.equal(await given.store.getV1Filter(stranger, filter.keywords[0]!.id), null);
    });

    it('derives one v1 record per keyword with its filter\'s settings', async () => {
      const filter = view({
        filterAction: 'hide',
        context: ['home', 'public'],
        keywords: [
          { id: newId(), keyword: 'a', wholeWord: true },
          { id: newId(), keyword: 'b', wholeWord: false },
        ],
      });
      await given.store.saveFilter(filter, at(1n));
      const records = await given.store.listV1Filters(filter.accountId);
      assert.deepEqual(
        records.map((r) => [r.id, r.phrase, r.wholeWord, r.irreversible, r.filterId, r.context]),
        filter.keywords.map((k) => [k.id, k.keyword, k.wholeWord, true, filter.id, ['home', 'public']]),
      );
      assert.deepEqual(await given.store.getV1Filter(filter.accountId, filter.keywords[1]!.id), records[1]);
    });

    it('finds a keyword and a filter status with their filter', async () => {
      const filter = view();
      await given.store.saveFilter(filter, at(1n));
      assert.deepEqual(await given.store.findKeyword(filter.accountId, filter.keywords[0]!.id), { filterId: filter.id, keyword: filter.keywords[0] });
      assert.deepEqual(await given.store.findFilterStatus(filter.accountId, filter.statuses[0]!.id), { filterId: filter.id, status: filter.statuses[0] });
    });

    it('ignores a view that is not newer than the stored one', async () => {
      const filter = view({ revision: 3 });
      await given.store.saveFilter(filter, at(5n));
      await given.store.saveFilter({ ...filter, title: 'stale', revision: 3 }, at(6n));
      await given.store.saveFilter({ ...filter, title: 'older', revision: 2 }, at(7n));
      assert.equal((await given.store.loadFilter(filter.id))?.title, 'magic');
    });

    it('replaces keywords, statuses and v1 records when the view changes', async () => {
      const filter = view();
      await given.store.saveFilter(filter, at(1n));
      const keyword = { id: newId(), keyword: 'new', wholeWord: false };
      await given.store.saveFilter({ ...filter, keywords: [keyword], statuses: [], revision: 1 }, at(2n));
      assert.equal(await given.store.findKeyword(filter.accountId, filter.keywords[0]!.id), null);
      assert.equal(await given.store.findFilterStatus(filter.accountId, filter.statuses[0]!.id), null);
      assert.deepEqual((await given.store.listV1Filters(filter.accountId)).map((r) => r.id), [keyword.id]);
    });

    it('hides a deleted filter everywhere but keeps its tombstone for the projector', async () => {
      const filter = view();
      await given.store.saveFilter(filter, at(1n));
      const tombstone = { ...filter, keywords: [], statuses: [], deleted: true, revision: 1 };
      await given.store.saveFilter(tombstone, at(2n));
      assert.equal(await given.store.getFilter(filter.accountId, filter.id), null);
      assert.deepEqual(await given.store.listFilters(filter.accountId), []);
      assert.deepEqual(await given.store.listV1Filters(filter.accountId), []);
      assert.deepEqual(await given.store.loadFilter(filter.id), tombstone);
    });

    it('lists an account\'s filters in id order', async () => {
      const accountId = newId();
      const ids = [newId(), newId(), newId()];
      for (const id of [ids[2]!, ids[0]!, ids[1]!]) await given.store.saveFilter(view({ id, accountId }), at(1n));
      assert.deepEqual((await given.store.listFilters(accountId)).map((f) => f.id), ids);
    });

    it('keeps a checkpoint per projection that never moves backwards', async () => {
      const projection = `p-${newId()}`;
      assert.equal(await given.store.checkpoint(projection), null);
      await given.store.advanceCheckpoint({ projection, position: 10n });
      await given.store.advanceCheckpoint({ projection, position: 4n });
      assert.equal(await given.store.checkpoint(projection), 10n);
      await given.store.saveFilter(view(), { projection, position: 12n });
      assert.equal(await given.store.checkpoint(projection), 12n);
      await given.store.saveFilter(view(), { projection, position: 11n });
      assert.equal(await given.store.checkpoint(projection), 12n);
    });

    it('holds positions beyond 2^53', async () => {
      const projection = `p-${newId()}`;
      await given.store.advanceCheckpoint({ projection, position: 2n ** 62n + 1n });
      assert.equal(await given.store.checkpoint(projection), 2n ** 62n + 1n);
    });
  });
}
