import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import type { FilterView } from '../../src/projections/filter-view.ts';
import type { ManagedReadStore } from '../../src/projections/read-model-admin.ts';
import { contractSubject } from './contract-subject.ts';

export interface ManagedReadStoreFixture {
  /** A store on fresh data. */
  open(): Promise<ManagedReadStore>;
  /** Another connection to the same data (another process, in production). */
  openSibling(store: ManagedReadStore): Promise<ManagedReadStore>;
}

const view = (accountId: string, title = 'magic'): FilterView => ({
  id: newId(),
  accountId,
  title,
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [{ id: newId(), keyword: 'magic', wholeWord: true }],
  statuses: [],
  revision: 0,
  deleted: false,
});

/** Leases and generations, as the projector process and the rebuild command use them. */
export function managedReadStoreContract(name: string, fixture: () => ManagedReadStoreFixture | null): void {
  describe(`Managed read store contract: ${name}`, function () {
    const given = contractSubject<ManagedReadStore, ManagedReadStoreFixture>(fixture);

    it('grants a lease to one owner at a time and lets the holder renew it', async () => {
      const lease = `lease-${newId()}`;
      assert.equal(await given.store.tryLease(lease, 'a', 5000), true);
      assert.equal(await given.store.tryLease(lease, 'b', 5000), false);
      assert.equal(await given.store.tryLease(lease, 'a', 5000), true);
    });

    it('lets another owner take an expired or released lease', async () => {
      const lease = `lease-${newId()}`;
      assert.equal(await given.store.tryLease(lease, 'a', 300), true);
      await new Promise((resolve) => setTimeout(resolve, 350));
      assert.equal(await given.store.tryLease(lease, 'b', 5000), true);
      assert.equal(await given.store.tryLease(lease, 'a', 5000), false);
      await given.store.releaseLease(lease, 'a');
      assert.equal(await given.store.tryLease(lease, 'a', 5000), false, 'only the holder can release');
      await given.store.releaseLease(lease, 'b');
      assert.equal(await given.store.tryLease(lease, 'a', 5000), true);
    });

    it('fills a new generation without touching what queries see', async () => {
      const accountId = newId();
      const live = view(accountId, 'live');
      await given.store.saveFilter(live, { projection: 'p', position: 5n });
      const before = await given.store.currentGeneration();
      const generation = await given.store.createGeneration();
      assert.notEqual(generation, before);
      const fresh = given.store.generation(generation);
      assert.deepEqual(await fresh.listFilters(accountId), []);
      assert.equal(await fresh.checkpoint('p'), null);
      await fresh.saveFilter(view(accountId, 'rebuilt'), { projection: 'p', position: 5n });
      assert.deepEqual((await given.store.listFilters(accountId)).map((f) => f.title), ['live']);
      assert.equal(await given.store.currentGeneration(), before);
    });

    it('swaps a pending generation in for every connection at once', async () => {
      const sibling = await given.setup.openSibling(given.store);
      try {
        const accountId = newId();
        await given.store.saveFilter(view(accountId, 'live'), { projection: 'p', position: 5n });
        const generation = await given.store.createGeneration();
        await given.store.generation(generation).saveFilter(view(accountId, 'rebuilt'), { projection: 'p', position: 7n });
        assert.equal(await given.store.pendingGeneration(), null);
        await given.store.markPending(generation);
        assert.equal(await sibling.pendingGeneration(), generation);
        assert.equal(await sibling.swapIn(generation), true);
        assert.equal(await given.store.pendingGeneration(), null);
        assert.equal(await given.store.currentGeneration(), generation);
        assert.deepEqual((await given.store.listFilters(accountId)).map((f) => f.title), ['rebuilt']);
        assert.equal(await given.store.checkpoint('p'), 7n);
        const later = view(accountId, 'after the swap');
        await sibling.saveFilter(later, { projection: 'p', position: 8n });
        assert.deepEqual((await given.store.getFilter(accountId, later.id))?.title, 'after the swap');
      } finally {
        await sibling.close();
      }
    });

    it('refuses to swap in a generation that is not the pending one', async () => {
      const first = await given.store.createGeneration();
      const second = await given.store.createGeneration();
      await given.store.markPending(first);
      await given.store.markPending(second);
      assert.equal(await given.store.swapIn(first), false);
      assert.equal(await given.store.swapIn(second), true);
      assert.equal(await given.store.currentGeneration(), second);
    });
  });
}
