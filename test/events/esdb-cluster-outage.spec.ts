import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandInCluster } from '../support/esdb-stand-in-cluster.ts';
import { waitUntil } from '../support/wait-until.ts';

// The write outage of each failure docs/production.md names, measured on a three-node cluster of protocol
// STAND-INS (not servers) with the server's own 2 s prepare/commit timeout: a writer appends one event at a
// time at its exact revision while the failure is made; the outage is the time from the failure to the
// longest wait between two acknowledged appends from the failure on. Every acknowledged append is then in
// the log exactly once.
interface Failure {
  readonly name: string;
  readonly make: (cluster: EsdbStandInCluster) => void | Promise<void>;
}

/** GossipTimeoutMs 2,500 + LeaderElectionTimeoutMs 1,000 (ClusterVNodeOptions.cs 312, 331 at v24.10.0). */
const ELECTION_MS = 3_500;

const FAILURES: readonly Failure[] = [
  { name: 'leader stopped, new leader at once', make: (cluster) => void cluster.stopLeader() },
  { name: 'leader stopped, new leader after 3.5 s (24.10 defaults)', make: (cluster) => void cluster.stopLeader({ electionMs: ELECTION_MS }) },
  { name: 'leader cut off from its peers (reachable), new leader at once', make: (cluster) => cluster.isolate(cluster.leader!) },
  {
    name: 'leader cut off from its peers (reachable), new leader after 3.5 s',
    make: (cluster) => cluster.isolate(cluster.leader!, { electionMs: ELECTION_MS }),
  },
  { name: 'follower cut off from its peers', make: (cluster) => cluster.isolate(cluster.followers[0]!) },
  {
    name: 'appends slowed past the 2 s timeout (held 3 s)',
    make: async (cluster) => {
      const leader = cluster.leader!;
      leader.standIn.holdWrites();
      await waitUntil(() => (leader.standIn.gate.timeouts ?? 0) >= 1, 'a held append answered with the commit timeout');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      leader.standIn.release();
    },
  },
];

describe('EventStoreDB adapter: the write outage of each cluster failure (protocol stand-ins, not servers)', function () {
  this.timeout(120_000);
  const figures: string[] = [];
  after(() => {
    // The figures docs/production.md quotes, with the machine's load when they were taken.
    console.log(`    write outage per failure (load ${loadavg()[0]!.toFixed(1)}):\n${figures.map((f) => `      ${f}`).join('\n')}`);
  });

  for (const failure of FAILURES) {
    it(`resumes writes within the append budget after: ${failure.name}, each acknowledged append stored once`, async () => {
      const cluster = await EsdbStandInCluster.start();
      const store = EsdbEventStore.connect(cluster.url(), 20_000);
      try {
        const stream = `filter-${newId()}`;
        const acknowledged: string[] = [];
        const times: number[] = [];
        let failedAt = 0;
        let stop = false;
        // An append that fails ends the writer: the waits below then fail at once with its error.
        let writerFailed: Error | null = null;
        const written = () => {
          if (writerFailed !== null) throw writerFailed;
          return acknowledged.length;
        };
        const writer = (async () => {
          while (!stop) {
            const id = randomUUID();
            await store.appendToStream(
              stream,
              [{ id, type: 'T', data: { n: acknowledged.length }, metadata: {} }],
              acknowledged.length === 0 ? 'no_stream' : BigInt(acknowledged.length - 1),
            );
            acknowledged.push(id);
            times.push(Date.now());
          }
        })().catch((error: unknown) => {
          writerFailed = error instanceof Error ? error : new Error(String(error));
        });
        await waitUntil(() => written() >= 20, 'twenty appends before the failure');
        failedAt = Date.now();
        await failure.make(cluster);
        const before = acknowledged.length;
        await waitUntil(() => written() >= before + 20, 'twenty appends after the failure');
        stop = true;
        await writer;
        written();
        const from = times.findIndex((t) => t >= failedAt);
        const outage = Math.max(...times.slice(from).map((t, i) => t - (times[from + i - 1] ?? failedAt)));
        figures.push(`${failure.name}: ${outage} ms`);
        assert.ok(outage < 20_000, `${outage} ms`);
        assert.deepEqual(
          cluster.log.stream(stream, 0n).map((e) => e.id),
          acknowledged,
        );
      } finally {
        await store.close();
        await cluster.shutdown();
      }
    });
  }
});
