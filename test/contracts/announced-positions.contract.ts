import assert from 'node:assert/strict';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { contractSubject } from './contract-subject.ts';
import type { ManagedReadStoreFixture } from './read-model-admin.contract.ts';

/** The announcers' checkpoints, one per transport: never backwards, outside the read models' generations. */
export function announcedPositionsContract(name: string, fixture: () => ManagedReadStoreFixture | null): void {
  describe(`Announced positions contract: ${name}`, function () {
    const given = contractSubject<ManagedReadStore, ManagedReadStoreFixture>(fixture);

    it('knows no position for a transport whose announcer never ran, and "from the start" once it did', async () => {
      const channel = `nats-${newId()}`;
      assert.equal(await given.store.announced(channel), null);
      await given.store.markAnnounced(channel, null);
      assert.deepEqual(await given.store.announced(channel), { position: null });
    });

    it('keeps each transport on its own and never moves a position backwards, even for EventStoreDB-sized positions', async () => {
      const [nats, redis] = [`nats-${newId()}`, `redis-${newId()}`];
      const big = 2n ** 100n + 7n;
      await given.store.markAnnounced(nats, 9n);
      await given.store.markAnnounced(nats, 10n);
      await given.store.markAnnounced(redis, 3n);
      await given.store.markAnnounced(nats, 2n);
      await given.store.markAnnounced(nats, null);
      assert.deepEqual(await given.store.announced(nats), { position: 10n }, '10 is not 9 (string order would say otherwise) and nothing goes back');
      assert.deepEqual(await given.store.announced(redis), { position: 3n });
      await given.store.markAnnounced(nats, big);
      assert.deepEqual(await given.store.announced(nats), { position: big });
    });

    it('shows one connection what another stored, and survives a rebuild swapping a generation in', async () => {
      const channel = `nats-${newId()}`;
      await given.store.markAnnounced(channel, 42n);
      const other = await given.setup.openSibling(given.store);
      try {
        assert.deepEqual(await other.announced(channel), { position: 42n });
        const generation = await other.createGeneration();
        await other.markPending(generation);
        assert.equal(await other.swapIn(generation), true);
        assert.deepEqual(await given.store.announced(channel), { position: 42n });
      } finally {
        await other.close();
      }
    });
  });
}
