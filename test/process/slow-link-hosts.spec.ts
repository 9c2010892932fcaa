import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { fencedWrites, health } from '../support/host-health.ts';
import { hostedDeployment, type HostedDeployment } from '../support/hosted-deployment.ts';
import { delayingRelayOn, type DelayingRelay } from '../support/hosted-services.ts';
import { standInMissing } from '../support/mongo-stand-in.ts';
import { natsServerMissing } from '../support/nats-server.ts';
import { TestHosts, testHostsMissing } from '../support/test-hosts.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * One way; a round trip to MongoDB through the link takes twice this at least. A write costs about 14
 * round trips to MongoDB in all (token, append, the projector's batch, the API's checkpoint read): at 150 ms
 * each way it took 4.3-5.1 s, at the edge of the 5 s read-your-writes wait, so the test stays below.
 */
const SLOW_MS = 60;
/** Slower than /health's 2 s probe time-out for a round trip. */
const VERY_SLOW_MS = 1_500;

/**
 * Issue 29, item 4's delayed link: the API and the projector on hosts of their own reach MongoDB (the
 * wire-protocol STAND-IN, not a server) only through a delaying relay on a third host
 * (test/support/delaying-relay-process.ts; the kernels here have no sch_netem). A slow link must cost
 * time, never correctness: writes answered and visible, one lease holder, /health telling the truth.
 */
describe('Hosts on a slow link to MongoDB: the API and the projector through a delaying relay', function () {
  this.timeout(120_000);
  const missing = testHostsMissing() ?? standInMissing() ?? natsServerMissing();
  let hosts: TestHosts;
  let deployment: HostedDeployment;
  let relay: DelayingRelay;
  let api: string;
  let projector: string;

  before(async function () {
    this.timeout(180_000);
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    hosts = TestHosts.create(['mongo', 'nats', 'link', 'api', 'proj']);
    deployment = await hostedDeployment(hosts, {});
    relay = await delayingRelayOn(hosts, 'link', deployment.mongoAddress, 0);
    const started = [
      deployment.start('proj', 'src/projector-main.ts', {}, relay.address),
      deployment.start('api', 'src/main.ts', { PROJECTOR: 'off' }, relay.address),
    ];
    [projector, api] = (await Promise.all(started.map((child) => child.url()))) as [string, string];
    await waitUntil(async () => (await health(projector)).leader === true, 'the projector leading');
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') deployment.printLogs();
  });

  after(async () => {
    await deployment?.stop();
    relay?.stop();
    hosts?.destroy();
  });

  it(`at ${SLOW_MS} ms each way: every write answered and visible at once, one lease holder, /health ok on both hosts`, async () => {
    const client = filtersApi(api, deployment.token);
    const lease = async () => {
      const reads = await MongoReadStore.connect(`mongodb://${deployment.mongoAddress}/?directConnection=true`, deployment.database);
      try {
        return await reads.leaseHolder(FILTERS_LEASE);
      } finally {
        await reads.close();
      }
    };
    const writes = async (label: string) => {
      const took: number[] = [];
      for (let i = 0; i < 4; i++) {
        const started = Date.now();
        const made = await client.post('/api/v2/filters', newFilter(`${label} ${i}`, `kw${i}`));
        took.push(Date.now() - started);
        assert.equal(made.status, 200, JSON.stringify(made.body));
        // Read-your-writes across the slow link: the next read on the API shows the write.
        const read = await client.get(`/api/v2/filters/${made.body.id}`);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.equal(read.body.title, `${label} ${i}`);
      }
      return took.sort((a, b) => a - b);
    };
    const before = await lease();
    const fast = await writes('fast');

    await relay.setDelay(SLOW_MS);
    // The delay is on the path: a ping through the relay takes a round trip of the link at least.
    const rtt = await pingThrough(relay.address);
    assert.ok(rtt >= 2 * SLOW_MS, `a ping through the relay took ${rtt} ms`);
    const slow = await writes('slow');
    const seen = await Promise.all([health(api), health(projector)]);
    for (const report of seen) {
      assert.equal(report.httpStatus, 200, JSON.stringify(report));
      assert.equal(report.readStore, 'up');
    }
    assert.equal(seen[1].leader, true);
    const during = await lease();
    assert.equal(during?.owner, before?.owner, 'the projector kept its lease');
    assert.equal(during?.fence, before?.fence, 'and never had to take it again (a new fencing token)');
    assert.equal(await fencedWrites(projector), 0);

    await relay.setDelay(0);
    assert.equal(await deployment.differencesFromTheLog(), 0);
    console.log(
      `      ping through the relay ${rtt} ms; POST+GET at 0 ms: ${fast.join(', ')} ms; at ${SLOW_MS} ms each way: ${slow.join(', ')} ms; /health took ${seen.map((s) => s.tookMs).join(' and ')} ms`,
    );
  });

  it(`at ${VERY_SLOW_MS} ms each way (past /health's probe): /health says MongoDB does not answer; a write is kept and shows once the link is quick`, async () => {
    const client = filtersApi(api, deployment.token);
    await relay.setDelay(VERY_SLOW_MS);
    const started = Date.now();
    const made = await client.post('/api/v2/filters', newFilter('over a very slow link', 'slow'));
    const tookMs = Date.now() - started;
    // Acknowledged once the log holds it; the read models' wait (5 s) may run out first, which the log says.
    assert.equal(made.status, 200, JSON.stringify(made.body));
    let seen!: Awaited<ReturnType<typeof health>>;
    await waitUntil(async () => {
      seen = await health(api);
      return seen.httpStatus === 503 && seen.problems.some((p) => p.reason === 'read_store_unreachable');
    }, '/health saying MongoDB does not answer in time');
    // Bounded by its probe time-out (2 s), not by the link.
    assert.ok(seen.tookMs < 2 * VERY_SLOW_MS, `/health took ${seen.tookMs} ms`);
    const projectorSeen = await health(projector);
    await relay.setDelay(0);
    await waitUntil(async () => (await health(api)).httpStatus === 200, '/health ok again once the link is quick');
    const read = await client.get(`/api/v2/filters/${made.body.id}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(await deployment.differencesFromTheLog(), 0);
    assert.equal(await fencedWrites(projector), 0);
    console.log(
      `      POST at ${VERY_SLOW_MS} ms each way answered in ${tookMs} ms; API /health ${seen.httpStatus} [${seen.problems.map((p) => p.reason).join()}] in ${seen.tookMs} ms; projector /health ${projectorSeen.httpStatus} [${projectorSeen.problems.map((p) => p.reason).join()}] leader=${projectorSeen.leader} in ${projectorSeen.tookMs} ms`,
    );
  });
});

/** How long a MongoDB ping through `address` takes from here, on a connection already made. */
async function pingThrough(address: string): Promise<number> {
  const client = await MongoClient.connect(`mongodb://${address}/?directConnection=true`);
  try {
    await client.db('admin').command({ ping: 1 });
    const started = Date.now();
    await client.db('admin').command({ ping: 1 });
    return Date.now() - started;
  } finally {
    await client.close();
  }
}
