import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { contractSubject } from './contract-subject.ts';
import { accountsAfterContract } from './read-store-accounts.contract.ts';
import { accountUsageContract } from './read-store-usage.contract.ts';

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

    describe('account usage', () => accountUsageContract(given));
    describe('accounts', () => accountsAfterContract(given));

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

    it("derives one v1 record per keyword with its filter's settings", async () => {
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
      assert.deepEqual(
        (await given.store.listV1Filters(filter.accountId)).map((r) => r.id),
        [keyword.id],
      );
    });

    it('stores and reads back a filter whose keywords hold 17 MB, beyond any one MongoDB document (16 MiB)', async () => {
      const keywords = Array.from({ length: 17 }, (_, i) => ({ id: newId(), keyword: String(i).padEnd(1_000_000, 'k'), wholeWord: i % 2 === 0 }));
      const filter = view({ keywords });
      await given.store.saveFilter(filter, at(1n));
      assert.deepEqual(await given.store.loadFilter(filter.id), filter);
      assert.deepEqual(await given.store.listFilters(filter.accountId), [filter]);
      const changed = { ...filter, title: 'changed', keywords: keywords.slice(1), revision: 1 };
      await given.store.saveFilter(changed, at(2n));
      assert.deepEqual(await given.store.getFilter(filter.accountId, filter.id), changed);
      assert.equal((await given.store.listV1Filters(filter.accountId)).length, 16);
    });

    it("keeps a filter's keywords and statuses in their list order, whatever their ids", async () => {
      const ids = Array.from({ length: 30 }, () => newId());
      const shuffled = ids.map((_, i) => ids[(i * 7) % ids.length]!);
      const filter = view({
        keywords: shuffled.map((id, i) => ({ id, keyword: `k${i}`, wholeWord: true })),
        statuses: shuffled.map((id, i) => ({ id, statusId: String(1000 - i) })),
      });
      await given.store.saveFilter(filter, at(1n));
      assert.deepEqual(await given.store.loadFilter(filter.id), filter);
      const loaded = await given.store.loadFilters([filter.id]);
      assert.deepEqual(loaded.get(filter.id), filter);
      assert.deepEqual(await given.store.findFilterStatus(filter.accountId, shuffled[3]!), { filterId: filter.id, status: filter.statuses[3] });
      const reversed = { ...filter, keywords: [...filter.keywords].reverse(), statuses: [...filter.statuses].reverse(), revision: 1 };
      await given.store.saveFilter(reversed, at(2n));
      assert.deepEqual(await given.store.loadFilter(filter.id), reversed);
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

    it("lists an account's filters in id order", async () => {
      const accountId = newId();
      const ids = [newId(), newId(), newId()];
      for (const id of [ids[2]!, ids[0]!, ids[1]!]) await given.store.saveFilter(view({ id, accountId }), at(1n));
      assert.deepEqual(
        (await given.store.listFilters(accountId)).map((f) => f.id),
        ids,
      );
    });

    it("gives each state of an account's filters its own version, untouched by other accounts", async () => {
      const accountId = newId();
      const seen = new Set<string>([await given.store.filtersVersion(accountId)]);
      const expectNew = async () => {
        const version = await given.store.filtersVersion(accountId);
        assert.ok(!seen.has(version), `version ${version} came back`);
        seen.add(version);
      };
      const first = view({ accountId, revision: 0 });
      await given.store.saveFilter(first, at(1n));
      await expectNew();
      const second = view({ accountId, revision: 0 });
      await given.store.saveFilter(second, at(2n));
      await expectNew();
      await given.store.saveFilter({ ...first, title: 'changed', revision: 1 }, at(3n));
      await expectNew();
      // Deleting one filter and creating another must not bring back an earlier version.
      await given.store.saveFilter({ ...second, keywords: [], statuses: [], deleted: true, revision: 1 }, at(4n));
      await expectNew();
      await given.store.saveFilter(view({ accountId, revision: 0 }), at(5n));
      await expectNew();
      const before = await given.store.filtersVersion(accountId);
      await given.store.saveFilter({ ...first, title: 'stale', revision: 1 }, at(6n));
      await given.store.saveFilter(view(), at(7n));
      assert.equal(await given.store.filtersVersion(accountId), before);
      assert.equal(await given.store.filtersVersion('not-an-id'), await given.store.filtersVersion(newId()));
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

    it('keeps filters of two accounts that share a keyword id and a status id, each for its own account', async () => {
      const [keywordId, statusId] = [newId(), newId()];
      const shared = { keywords: [{ id: keywordId, keyword: 'same id', wholeWord: true }], statuses: [{ id: statusId, statusId: '7' }] };
      const alices = view({ ...shared, title: 'alice' });
      const bobs = view({ ...shared, title: 'bob', keywords: [{ id: keywordId, keyword: 'bob word', wholeWord: false }] });
      const projection = `p-${newId()}`;
      await given.store.applyBatch({ projection, position: 2n, views: [alices, bobs] });
      assert.equal(await given.store.checkpoint(projection), 2n);
      for (const [filter, phrase] of [
        [alices, 'same id'],
        [bobs, 'bob word'],
      ] as const) {
        assert.deepEqual(
          (await given.store.listV1Filters(filter.accountId)).map((r) => [r.id, r.filterId, r.phrase]),
          [[keywordId, filter.id, phrase]],
        );
        assert.equal((await given.store.getV1Filter(filter.accountId, keywordId))?.filterId, filter.id);
        assert.equal((await given.store.findKeyword(filter.accountId, keywordId))?.filterId, filter.id);
        assert.deepEqual(await given.store.findFilterStatus(filter.accountId, statusId), { filterId: filter.id, status: shared.statuses[0] });
      }
      await given.store.saveFilter({ ...alices, keywords: [], statuses: [], deleted: true, revision: 1 }, at(3n, projection));
      assert.equal(await given.store.getV1Filter(alices.accountId, keywordId), null);
      assert.equal(await given.store.findFilterStatus(alices.accountId, statusId), null);
      assert.equal((await given.store.getV1Filter(bobs.accountId, keywordId))?.phrase, 'bob word', "deleting one filter leaves the other's records");
      assert.equal((await given.store.findFilterStatus(bobs.accountId, statusId))?.filterId, bobs.id);
    });

    it('keeps both filters of one account that share a keyword id, answering the lower filter id for the id', async () => {
      const accountId = newId();
      const keywordId = newId();
      const [lower, higher] = [newId(), newId()];
      const keyword = (text: string) => [{ id: keywordId, keyword: text, wholeWord: true }];
      await given.store.saveFilter(view({ id: higher, accountId, keywords: keyword('higher') }), at(1n));
      await given.store.saveFilter(view({ id: lower, accountId, keywords: keyword('lower') }), at(2n));
      assert.deepEqual(
        (await given.store.listV1Filters(accountId)).map((r) => [r.filterId, r.phrase]),
        [
          [lower, 'lower'],
          [higher, 'higher'],
        ],
      );
      assert.equal((await given.store.getV1Filter(accountId, keywordId))?.phrase, 'lower');
      await given.store.saveFilter(view({ id: higher, accountId, keywords: keyword('renamed'), revision: 1 }), at(3n));
      assert.deepEqual(
        (await given.store.listV1Filters(accountId)).map((r) => r.phrase),
        ['lower', 'renamed'],
      );
    });

    it('stores a batch of views, parked events and the checkpoint together, skipping views that are not newer', async () => {
      const projection = `p-${newId()}`;
      const [kept, replaced, fresh] = [view({ revision: 4, title: 'kept' }), view({ revision: 1 }), view({ title: 'fresh' })];
      await given.store.applyBatch({ projection, position: 10n, views: [kept, replaced] });
      const parked = {
        position: 12n,
        streamName: `filter-${newId()}`,
        revision: 3n,
        type: 'KeywordsUpdated',
        error: 'Error: no',
        parkedAt: '2026-11-23T10:00:00.000Z',
      };
      await given.store.applyBatch({
        projection,
        position: 13n,
        views: [{ ...kept, title: 'stale', revision: 4 }, { ...replaced, title: 'newer', revision: 2 }, fresh],
        parked: [parked],
      });
      const loaded = await given.store.loadFilters([kept.id, replaced.id, fresh.id, newId(), 'not an id']);
      assert.deepEqual([...loaded.keys()].sort(), [kept.id, replaced.id, fresh.id].sort());
      assert.deepEqual([loaded.get(kept.id)?.title, loaded.get(replaced.id)?.title, loaded.get(fresh.id)?.title], ['kept', 'newer', 'fresh']);
      assert.equal(await given.store.checkpoint(projection), 13n);
      assert.deepEqual(await given.store.parkedEvents(projection), [parked]);
      assert.deepEqual(await given.store.parkedEvents(`p-${newId()}`), []);
      await given.store.applyBatch({ projection, position: 12n, views: [], parked: [parked] });
      assert.equal(await given.store.checkpoint(projection), 13n, 'a repeated batch moves nothing back');
      assert.equal((await given.store.parkedEvents(projection)).length, 1);
    });

    it('writes the same records from a previous-view hint as without it, and ignores a hint the stored view does not match', async () => {
      const projection = `p-${newId()}`;
      const accountId = newId();
      const [kept, gone] = [
        { id: newId(), statusId: '1' },
        { id: newId(), statusId: '2' },
      ];
      const first = view({ accountId, statuses: [kept, gone], revision: 1 });
      await given.store.applyBatch({ projection, position: 1n, views: [first], previous: new Map([[first.id, null]]) });
      const added = { id: newId(), statusId: '3' };
      const second = { ...first, title: 'renamed', statuses: [kept, added], revision: 2 };
      await given.store.applyBatch({ projection, position: 2n, views: [second], previous: new Map([[first.id, first]]) });
      assert.deepEqual(await given.store.loadFilter(first.id), second);
      assert.equal(await given.store.findFilterStatus(accountId, gone.id), null);
      assert.deepEqual(await given.store.findFilterStatus(accountId, added.id), { filterId: first.id, status: added });
      const keywords = [{ id: newId(), keyword: 'new', wholeWord: false }];
      // A stale hint (revision 1, while 2 is stored) must not decide what is written.
      const third = { ...second, keywords, statuses: [], revision: 3 };
      await given.store.applyBatch({ projection, position: 3n, views: [third], previous: new Map([[first.id, first]]) });
      assert.deepEqual(await given.store.loadFilter(first.id), third);
      assert.deepEqual(
        (await given.store.listV1Filters(accountId)).map((r) => [r.id, r.phrase]),
        [[keywords[0]!.id, 'new']],
      );
      assert.equal(await given.store.findFilterStatus(accountId, kept.id), null);
      // A hint that says "not stored" for a stored view is ignored too: the older view is not written.
      await given.store.applyBatch({ projection, position: 4n, views: [{ ...first, revision: 2 }], previous: new Map([[first.id, null]]) });
      assert.deepEqual(await given.store.loadFilter(first.id), third);
    });

    it('keeps the v1 records right through keyword additions, edits, removals, repeats and settings changes given as hints', async () => {
      const projection = `p-${newId()}`;
      const [a, b, c, d] = [newId(), newId(), newId(), newId()];
      const kw = (id: string, keyword: string, wholeWord = true) => ({ id, keyword, wholeWord });
      const steps: Partial<FilterView>[] = [
        { keywords: [kw(a, 'one'), kw(b, 'two'), kw(c, 'three')] },
        { keywords: [kw(a, 'one'), kw(b, 'two!', false), kw(d, 'four')] },
        { keywords: [kw(a, 'one'), kw(b, 'two!', false), kw(d, 'four')], context: ['home', 'public'], filterAction: 'hide' },
        { keywords: [kw(d, 'four'), kw(a, 'first'), kw(a, 'last')] },
        { keywords: [kw(a, 'last')], deleted: true },
      ];
      // The same views, for an account of their own, stored whole each time: what the records must be.
      const [hinted, whole] = [view({ keywords: [], statuses: [] }), view({ keywords: [], statuses: [] })];
      let previous: FilterView | null = null;
      let position = 0n;
      for (const [i, step] of steps.entries()) {
        const next: FilterView = { ...hinted, ...step, revision: i + 1 };
        position += 1n;
        await given.store.applyBatch({ projection, position, views: [next], previous: new Map([[hinted.id, previous]]) });
        await given.store.applyBatch({ projection: `${projection}-whole`, position, views: [{ ...whole, ...step, revision: i + 1 }] });
        previous = next;
        const records = async (accountId: string) =>
          (await given.store.listV1Filters(accountId)).map(({ id, phrase, context, wholeWord, expiresAt, irreversible }) => ({
            id,
            phrase,
            context,
            wholeWord,
            expiresAt,
            irreversible,
          }));
        assert.deepEqual(await records(hinted.accountId), await records(whole.accountId), `after step ${i + 1}`);
      }
      assert.deepEqual(await given.store.listV1Filters(hinted.accountId), []);
    });

    it('holds positions beyond 2^53', async () => {
      const projection = `p-${newId()}`;
      await given.store.advanceCheckpoint({ projection, position: 2n ** 62n + 1n });
      assert.equal(await given.store.checkpoint(projection), 2n ** 62n + 1n);
    });

    it("holds EventStoreDB's full positions (up to 2^128) in order, checkpoints and parked events alike", async () => {
      const projection = `p-${newId()}`;
      const full = (commit: bigint, prepare: bigint) => (commit << 64n) | prepare;
      await given.store.advanceCheckpoint({ projection, position: full(5n, 90n) });
      for (const lower of [full(5n, 10n), full(4n, 2n ** 64n - 1n), 9n]) await given.store.advanceCheckpoint({ projection, position: lower });
      assert.equal(await given.store.checkpoint(projection), full(5n, 90n));
      await given.store.advanceCheckpoint({ projection, position: full(5n, 91n) });
      assert.equal(await given.store.checkpoint(projection), full(5n, 91n));
      const top = 2n ** 128n - 1n;
      await given.store.advanceCheckpoint({ projection, position: top });
      assert.equal(await given.store.checkpoint(projection), top);
      const parkedAt = (position: bigint, revision: bigint) => ({
        position,
        streamName: `filter-${newId()}`,
        revision,
        type: 'KeywordsUpdated',
        error: 'Error: no',
        parkedAt: '2026-11-23T10:00:00.000Z',
      });
      const parked = [parkedAt(full(7n, 3n), 1n), parkedAt(full(2n, 2n ** 63n), 0n), parkedAt(full(7n, 2n), 2n), parkedAt(300n, 3n)];
      await given.store.applyBatch({ projection, position: top, views: [], parked });
      assert.deepEqual(
        (await given.store.parkedEvents(projection)).map((e) => e.position),
        [300n, full(2n, 2n ** 63n), full(7n, 2n), full(7n, 3n)],
      );
    });
  });
}
