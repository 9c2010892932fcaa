import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { jsonEvent } from '@eventstore/db-client';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { EsdbLeaderConnection } from '../../src/events/esdb-leader-connection.ts';
import { appendExactlyOnce } from '../../src/events/esdb-unknown-outcome.ts';
import type { NewEvent } from '../../src/events/event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandInCluster } from '../support/esdb-stand-in-cluster.ts';
import { waitUntil } from '../support/wait-until.ts';

// The adapter on a three-node cluster of protocol STAND-INS (test/support/esdb-stand-in-cluster.ts), not
// servers: leader changes, a leader cut off from its peers, lagging followers, and a retry right after a
// failover that the new leader drops (the 24.10 rules are cited in the stand-in).
const event = (): NewEvent => ({ id: randomUUID(), type: 'T', data: { n: 1 }, metadata: {} });

for (const appendCall of ['BatchAppend', 'Append'] as const) {
  describe(`EventStoreDB adapter on a three-node cluster, through ${appendCall} (protocol stand-ins, not servers)`, function () {
    this.timeout(60_000);
    let cluster: EsdbStandInCluster;
    const stores: EsdbEventStore[] = [];
    const connect = (url: string, budgetMs = 20_000) => {
      const store = EsdbEventStore.connect(url, budgetMs);
      stores.push(store);
      return store;
    };
    const ids = (store: EsdbEventStore, stream: string) => store.readStream(stream).then((events) => events.map((e) => e.eventId));

    beforeEach(async () => {
      cluster = await EsdbStandInCluster.start({ appendCall });
      for (const node of cluster.nodes) node.standIn.gate.writeTimeoutMs = 200;
    });
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
      await cluster.shutdown();
    });

    it('moves to the new leader when its leader is cut off from its peers (not ready, yet reachable), and reads its own writes there', async () => {
      // A budget well short of the partition (which lasts the whole test): only a move to the new leader helps.
      const store = connect(cluster.url(), 3_000);
      const stream = `filter-${newId()}`;
      const first = event();
      await store.appendToStream(stream, [first], 'no_stream');
      const old = cluster.leader!;
      cluster.isolate(old);
      const second = event();
      const result = await store.appendToStream(stream, [second], 0n);
      assert.equal(result.nextRevision, 1n);
      assert.deepEqual(await ids(store, stream), [first.id, second.id]);
      assert.equal(old.standIn.served[appendCall], 1, 'nothing more was written through the cut-off node');
    });

    // Through Append the refusal is an UnavailableError, on which the client rediscovers by itself; through
    // BatchAppend it is an UnknownError inside the call's response, on which the client stays put.
    if (appendCall === 'BatchAppend')
      it('moves off a cut-off leader on its not-ready answer alone, with no read of the leader before the append', async () => {
        const connection = EsdbLeaderConnection.fromUrl(cluster.url());
        try {
          const stream = `filter-${newId()}`;
          const client = connection.client;
          await client.appendToStream(stream, jsonEvent({ type: 'T', data: {} }), { requiresLeader: true });
          cluster.isolate(cluster.leader!);
          const result = await appendExactlyOnce(connection, stream, [jsonEvent({ type: 'T', data: {} })], 0n, 3_000);
          assert.equal(result.nextExpectedRevision, 1n);
          assert.equal(connection.moves, 1);
        } finally {
          await connection.close();
        }
      });

    it('reads of the leader: another process on a lagging follower still sees the write', async () => {
      const writer = connect(cluster.url());
      const reader = connect(cluster.url({ nodePreference: 'follower' }));
      const stream = `filter-${newId()}`;
      await reader.readStream(`filter-${newId()}`);
      const written = event();
      await writer.appendToStream(stream, [written], 'no_stream');
      for (const follower of cluster.followers) cluster.lag(follower, 1);
      assert.deepEqual(await ids(reader, stream), [written.id]);
    });

    it('writes on through the new leader when the leader stops', async () => {
      const store = connect(cluster.url());
      const stream = `filter-${newId()}`;
      await store.appendToStream(stream, [event()], 'no_stream');
      cluster.stopLeader();
      const result = await store.appendToStream(stream, [event()], 0n);
      assert.equal(result.nextRevision, 1n);
      assert.equal(cluster.log.stream(stream, 0n).length, 2);
    });

    it('resolves a write of unknown outcome across a failover, through the retry the new leader drops until it has indexed the original', async () => {
      const store = connect(cluster.url());
      const stream = `filter-${newId()}`;
      await store.appendToStream(`filter-${newId()}`, [event()], 'no_stream');
      const old = cluster.leader!;
      old.standIn.holdWrites();
      const written = event();
      const append = store.appendToStream(stream, [written], 'no_stream');
      await waitUntil(() => (old.standIn.gate.timeouts ?? 0) >= 1, 'the first try answered with the commit timeout');
      // The leader goes; the write it held lands in the log all the same (replicated before it died), and
      // the new leader has it in its log but not yet in its index.
      cluster.stopLeader({ unindexed: 0 });
      old.standIn.release();
      const leader = cluster.leader!;
      await waitUntil(() => (leader.standIn.gate.timeouts ?? 0) >= 1, 'a retry dropped by the new leader, answered by its timeout');
      cluster.indexed();
      const result = await append;
      assert.equal(result.nextRevision, 0n);
      assert.deepEqual(
        cluster.log.stream(stream, 0n).map((e) => e.id),
        [written.id],
      );
    });
  });
}
