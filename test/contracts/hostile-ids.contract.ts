import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { contractSubject, type ContractFixture } from './contract-subject.ts';

export type HostileIdsFixture = ContractFixture<ReadStore>;

/** What a path or body might carry instead of an id; none of it may reach a query as an operator. */
const HOSTILE: unknown[] = [{ $gt: '' }, { $ne: null }, { $regex: '.*' }, ['1'], '', 'abc', '1; DROP TABLE filters', `${'9'.repeat(20)}`];

/** Read stores answer "nothing here" for anything that is not an id, whatever its shape. */
export function hostileIdsContract(name: string, fixture: () => HostileIdsFixture | null): void {
  describe(`ReadStore refuses what is not an id: ${name}`, function () {
    const given = contractSubject<ReadStore>(fixture);
    const accountId = newId();
    const filterId = newId();
    const keywordId = newId();
    const statusId = newId();

    beforeEach(async () => {
      const view = {
        id: filterId,
        accountId,
        title: 't',
        context: ['home' as const],
        filterAction: 'warn' as const,
        expiresAt: null,
        keywords: [{ id: keywordId, keyword: 'k', wholeWord: true }],
        statuses: [{ id: statusId, statusId: '1' }],
        revision: 0,
        deleted: false,
      };
      await given.store.saveFilter(view, { projection: `p-${newId()}`, position: 1n });
    });

    it('finds nothing for a hostile filter, keyword, status or account id', async () => {
      for (const hostile of HOSTILE) {
        const id = hostile as string;
        assert.equal(await given.store.getFilter(accountId, id), null, JSON.stringify(hostile));
        assert.equal(await given.store.getFilter(id, filterId), null, JSON.stringify(hostile));
        assert.equal(await given.store.getV1Filter(accountId, id), null, JSON.stringify(hostile));
        assert.equal(await given.store.findKeyword(accountId, id), null, JSON.stringify(hostile));
        assert.equal(await given.store.findFilterStatus(accountId, id), null, JSON.stringify(hostile));
        assert.deepEqual(await given.store.listFilters(id), [], JSON.stringify(hostile));
        assert.deepEqual(await given.store.listV1Filters(id), [], JSON.stringify(hostile));
        assert.equal(await given.store.loadFilter(id), null, JSON.stringify(hostile));
      }
      assert.equal((await given.store.getFilter(accountId, filterId))?.id, filterId, 'the real record is still there');
    });
  });
}
