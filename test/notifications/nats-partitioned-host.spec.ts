import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { commitsInLog, storedMessages, STREAM } from '../support/announced-commits.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NatsCluster, natsServerMissing } from '../support/nats-cluster.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestHosts, testHostsMissing } from '../support/test-hosts.ts';
import { waitUntil } from '../support/wait-until.ts';

/** As the issue asks: long enough for the cluster to elect a new stream leader and the client to find the old one dead. */
const CUT_MS = 30_000;

/**
 * Issue 29, item 3: a three-node NATS cluster with a server on each of three test hosts (network
 * namespaces, test/support/test-hosts.ts), the stream at three replicas, and the stream leader's host cut
 * off from the network for 30 s (packets dropped, not SIGSTOP) while changes go on: each commit is in the
 * stream exactly once.
 */
describe('Announcements on a NATS cluster across hosts: the stream leader’s host cut off for 30 s', function () {
  this.timeout(240_000);
  const missing = testHostsMissing() ?? natsServerMissing();
  let hosts: TestHosts | undefined;
  let cluster: NatsCluster | undefined;
  let service: Awaited<ReturnType<typeof startService>> | undefined;

  before(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
  });

  after(async () => {
    await service?.close();
    await cluster?.stop();
    hosts?.destroy();
  });

  it('keeps exactly one message per commit', async () => {
    hosts = TestHosts.create(['nats1', 'nats2', 'nats3']);
    cluster = await NatsCluster.start(3, { network: hosts, hosts: ['nats1', 'nats2', 'nats3'] });
    const dir = scratchDir();
    const env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', NATS_URL: cluster.urls.join(','), NATS_STREAM_REPLICAS: '3' };
    service = await startService({ config: loadConfig(env), logger: silentLogger });
    const owner = await newOwner(dir);
    const api = filtersApi(service.url, owner.token);
    const made = await api.post('/api/v2/filters', newFilter('first'));
    assert.equal(made.status, 200);
    // Each retitle is a commit; one filter, so no per-account limit is met however many there are.
    const retitle = async (title: string) => assert.equal((await api.put(`/api/v2/filters/${made.body.id}`, { title })).status, 200);
    await waitUntil(async () => (await cluster!.streamCluster(STREAM))?.replicas.length === 2, 'the stream led by one server, followed by two');

    const leader = cluster.node((await cluster.streamCluster(STREAM))!.leader);
    const cutAt = Date.now();
    leader.partition();
    // Changes go on for the whole cut (the scenario's length, not a wait for something to happen).
    let during = 0;
    while (Date.now() - cutAt < CUT_MS) {
      await retitle(`cut ${during}`);
      during += 1;
    }
    const newLeader = (await cluster.streamCluster(STREAM))?.leader;
    leader.heal();
    for (let i = 0; i < 20; i += 1) await retitle(`after ${i}`);

    await waitUntil(
      async () => {
        const health = (await (await fetch(`${service!.url}/health`)).json()) as { announcements: { waitingCommits: number; state: string }[] };
        return health.announcements.every((a) => a.waitingCommits === 0 && a.state === 'connected');
      },
      'every announcement out',
      90_000,
    );
    const commits = await commitsInLog(dir);
    const stored = await storedMessages(cluster.urls, commits.length);
    const ids = stored.map((m) => m.messageId);
    console.log(
      `      ${commits.length} commits (${during} during the ${CUT_MS / 1000} s cut of ${leader.name}; new leader ${newLeader}), ${stored.length} messages`,
    );
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'no commit twice in the stream',
    );
    assert.deepEqual([...ids].sort(), [...commits].sort(), 'the stream holds exactly the commits of the log');
    assert.notEqual(newLeader, leader.name, 'the cut-off leader lost the stream to another server');
  });
});
