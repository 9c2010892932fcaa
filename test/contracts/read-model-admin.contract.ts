import assert from 'node:assert/strict';
import { newId } from '../../src/shared/ids.ts';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { contractSubject } from './contract-subject.ts';
import { filterView } from '../support/filter-views.ts';

export interface StoreClock {
  /** The clock leases are measured by. */
  readonly now?: () => number;
}

export interface ManagedReadStoreFixture {
  /** A store on fresh data. */
  open(): Promise<ManagedReadStore>;
  /** Another connection to the same data (another process, in production), optionally with its own clock. */
  openSibling(store: ManagedReadStore, clock?: StoreClock): Promise<ManagedReadStore>;
}

const view = (accountId: string, title = 'magic'): FilterView => filterView(accountId, { title });

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
      let now = Date.now();
      const store = await given.setup.openSibling(given.store, { now: () => now });
      try {
        const lease = `lease-${newId()}`;
        assert.equal(await store.tryLease(lease, 'a', 300), true);
        now += 299;
        assert.equal(await store.tryLease(lease, 'b', 5000), false, 'not yet expired');
        now += 1;
        assert.equal(await store.tryLease(lease, 'b', 5000), true);
        assert.equal(await store.tryLease(lease, 'a', 5000), false);
        await store.releaseLease(lease, 'a');
        assert.equal(await store.tryLease(lease, 'a', 5000), false, 'only the holder can release');
        await store.releaseLease(lease, 'b');
        assert.equal(await store.tryLease(lease, 'a', 5000), true);
      } finally {
        await store.close();
      }
    });

    it('tells who holds a lease until when, and hands it over only from the owner named', async () => {
      const now = Date.now();
      const store = await given.setup.openSibling(given.store, { now: () => now });
      try {
        const lease = `lease-${newId()}`;
        assert.equal(await store.leaseHolder(lease), null);
        assert.equal(await store.tryLease(lease, 'a', 5000), true);
        const first = await store.leaseHolder(lease);
        assert.deepEqual({ owner: first?.owner, expiresAt: first?.expiresAt }, { owner: 'a', expiresAt: now + 5000 });
        assert.equal(await store.takeOverLease(lease, 'b', 'c', 5000), false, 'b does not hold it');
        assert.equal(await store.takeOverLease(lease, 'a', 'c', 7000), true, 'taken from a before it expired');
        const second = await store.leaseHolder(lease);
        assert.deepEqual({ owner: second?.owner, expiresAt: second?.expiresAt }, { owner: 'c', expiresAt: now + 7000 });
        // Where the store issues fencing tokens, a takeover issues a larger one.
        if (first?.fence !== undefined) assert.ok(second!.fence! > first.fence, `token ${second?.fence} after ${first.fence}`);
        assert.equal(await store.tryLease(lease, 'a', 5000), false);
        assert.equal(await store.takeOverLease(lease, 'a', 'd', 5000), false, 'a no longer holds it');
      } finally {
        await store.close();
      }
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
      assert.deepEqual(
        (await given.store.listFilters(accountId)).map((f) => f.title),
        ['live'],
      );
      assert.equal(await given.store.currentGeneration(), before);
    });

    it('moves its change stamp, where it gives one, on every write by this connection or another, swaps included', async () => {
      if (given.store.changeStamp() === null) {
        console.log('      (this store gives no change stamp: every listing is read anew, nothing to check)');
        return;
      }
      const sibling = await given.setup.openSibling(given.store);
      try {
        const accountId = newId();
        const seen = new Set([given.store.changeStamp()]);
        const moved = (what: string) => {
          const stamp = given.store.changeStamp();
          assert.ok(!seen.has(stamp), `the stamp moves after ${what}`);
          seen.add(stamp);
        };
        assert.ok(seen.has(given.store.changeStamp()), 'and stays put while nothing is written');
        await given.store.saveFilter(view(accountId), { projection: 'p', position: 1n });
        moved("this connection's write");
        await sibling.saveFilter(view(accountId), { projection: 'p', position: 2n });
        moved("another connection's write");
        const generation = await sibling.createGeneration();
        await sibling.markPending(generation);
        await sibling.swapIn(generation);
        moved("another connection's swap");
      } finally {
        await sibling.close();
      }
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
        assert.deepEqual(
          (await given.store.listFilters(accountId)).map((f) => f.title),
          ['rebuilt'],
        );
        assert.equal(await given.store.checkpoint('p'), 7n);
        const later = view(accountId, 'after the swap');
        await sibling.saveFilter(later, { projection: 'p', position: 8n });
        assert.deepEqual((await given.store.getFilter(accountId, later.id))?.title, 'after the swap');
      } finally {
        await sibling.close();
      }
    });

    it('makes a scratch generation that touches no other, and drops it but never the current or pending one', async () => {
      const accountId = newId();
      await given.store.saveFilter(view(accountId, 'live'), { projection: 'p', position: 5n });
      const retired = await given.store.currentGeneration();
      const next = await given.store.createGeneration();
      await given.store.markPending(next);
      assert.equal(await given.store.swapIn(next), true);
      const scratch = await given.store.createScratchGeneration();
      assert.ok(![retired, next].includes(scratch));
      await given.store.generation(scratch).saveFilter(view(accountId, 'scratch'), { projection: 'p', position: 5n });
      assert.deepEqual(
        (await given.store.generation(retired).listFilters(accountId)).map((f) => f.title),
        ['live'],
        'the retired generation is kept for the next rebuild to drop',
      );
      const pending = await given.store.createGeneration();
      await given.store.markPending(pending);
      assert.equal(await given.store.dropGeneration(next), false);
      assert.equal(await given.store.dropGeneration(pending), false);
      assert.equal(await given.store.dropGeneration(scratch), true);
      assert.deepEqual(await given.store.generation(scratch).listFilters(accountId), [], 'its filters went with it');
      assert.equal(await given.store.currentGeneration(), next);
      assert.equal(await given.store.pendingGeneration(), pending);
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
