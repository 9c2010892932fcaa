import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openAccountStore } from '../../src/stores.ts';
import { readWholeLog } from '../../src/events/event-history.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filtersAsOf } from '../../src/projections/admin/filters-as-of.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { fencedWrites, health, healthOnHost, type Seen } from '../support/host-health.ts';
import { mongoStandInOn, natsServerOn } from '../support/hosted-services.ts';
import { standInMissing } from '../support/mongo-stand-in.ts';
import { natsServerMissing } from '../support/nats-server.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestHosts, testHostsMissing } from '../support/test-hosts.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Short, so a cut longer than the lease stays short; long enough that the holder, cut off right after a
 * renewal at worst, still projects (and so has a write in flight) when the changes made after the cut reach it.
 */
const LEASE_MS = 6000;

/**
 * Issue 29, item 4: the deployment's processes on hosts of their own (network namespaces, see
 * test/support/test-hosts.ts): MongoDB (the wire-protocol STAND-IN, not a server), NATS, two API processes
 * and two projectors. The event log stays SQLite on a shared DATA_DIR (the hosts share a file system), so
 * what a cut takes away is MongoDB and NATS.
 */
describe('Hosts on a network: the projector lease holder cut off from MongoDB and NATS, then healed', function () {
  this.timeout(90_000);
  const missing = testHostsMissing() ?? standInMissing() ?? natsServerMissing();
  const processes: NodeProcess[] = [];
  let hosts: TestHosts;
  let dir: string;
  let mongodbUrl: string;
  let database: string;
  let token: string;
  let accountId: string;
  let apis: [string, string];
  let projectors: { host: string; process: NodeProcess; url: string }[];

  before(async function () {
    // Six processes start cold at once: on a loaded 2-core machine that alone can take a minute.
    this.timeout(180_000);
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    hosts = TestHosts.create(['mongo', 'nats', 'api1', 'api2', 'proj1', 'proj2']);
    const [mongo, nats] = await Promise.all([mongoStandInOn(hosts, 'mongo'), natsServerOn(hosts, 'nats')]);
    dir = scratchDir();
    database = `cf_hosts_${randomUUID().slice(0, 8)}`;
    mongodbUrl = mongo.url.replace('/?', `/${database}?`);
    const accounts = await openAccountStore({ dataDir: dir, mongodbUrl });
    try {
      const account = await accounts.createAccount(`owner${randomUUID().slice(0, 8)}`);
      accountId = account.id;
      token = await accounts.createToken(account.id, ['read:filters', 'write:filters']);
    } finally {
      await accounts.close();
    }
    const env = {
      DATA_DIR: dir,
      MONGODB_URL: mongodbUrl,
      NATS_URL: nats.url,
      NATS_STREAM_STORAGE: 'memory',
      PROJECTOR_LEASE_MS: String(LEASE_MS),
      RATE_LIMITS: 'off',
    };
    const start = (host: string, script: string, extra: Record<string, string> = {}) => {
      const child = NodeProcess.start(script, { ...env, HOST: hosts.address(host), ...extra }, hosts.prefix(host));
      processes.push(child);
      return child;
    };
    const started = ['proj1', 'proj2'].map((host) => ({ host, process: start(host, 'src/projector-main.ts') }));
    const apiProcesses = ['api1', 'api2'].map((host) => start(host, 'src/main.ts', { PROJECTOR: 'off' }));
    apis = (await Promise.all(apiProcesses.map((api) => api.url()))) as [string, string];
    projectors = await Promise.all(started.map(async (p) => ({ ...p, url: await p.process.url() })));
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const child of processes)
      console.log(
        child.lines
          .slice(-15)
          .map((line) => JSON.stringify(line))
          .join('\n'),
        '\n',
      );
  });

  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
    hosts?.destroy();
  });

  it('keeps one writer at a time, resurrects nothing, and each host’s /health says what it sees', async () => {
    const [one, two] = apis.map((url) => filtersApi(url, token)) as [ReturnType<typeof filtersApi>, ReturnType<typeof filtersApi>];
    await waitUntil(async () => (await Promise.all(projectors.map(async (p) => (await health(p.url)).leader))).includes(true), 'a projector leading');
    const leads = await Promise.all(projectors.map(async (p) => (await health(p.url)).leader));
    const holder = projectors[leads.indexOf(true)]!;
    const standby = projectors[leads.indexOf(false)]!;
    const standbyOwner = (await health(standby.url)).owner!;

    const kept = await one.post('/api/v2/filters', { title: 'kept', context: ['home'], keywords_attributes: [{ keyword: 'alpha' }, { keyword: 'beta' }] });
    const doomed = await two.post('/api/v2/filters', newFilter('doomed', 'gamma'));
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal(doomed.status, 200, JSON.stringify(doomed.body));

    const cutAt = Date.now();
    hosts.cut(holder.host);
    // Appended at once (the API hosts still reach MongoDB): the cut-off holder starts projecting them and hangs.
    const beta = kept.body.keywords.find((k: { keyword: string }) => k.keyword === 'beta').id;
    const changes = [
      one.put(`/api/v2/filters/${kept.body.id}`, { keywords_attributes: [{ id: beta, _destroy: true }] }),
      two.delete(`/api/v2/filters/${doomed.body.id}`),
      one.post('/api/v2/filters', newFilter('during the cut', 'delta')),
    ];
    await waitUntil(async () => (await health(standby.url)).leader === true, 'the standby taking the lease over');
    const takeoverMs = Date.now() - cutAt;
    const answers = await Promise.all(changes);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );

    // The cut-off holder: it cannot see MongoDB, and no longer claims to lead once its lease may have run out.
    let cutHealth!: Awaited<ReturnType<typeof health>>;
    await waitUntil(
      async () => {
        cutHealth = await healthOnHost(hosts, holder.host, holder.url);
        return cutHealth.leader === false && cutHealth.readStore === 'down';
      },
      'the cut-off holder saying it cannot reach MongoDB and does not lead',
      // Well before the driver's monitor gives the connection up (connectTimeoutMS, 30 s), which would end the claim anyway.
      15_000,
    );
    const summary = (h: Seen) =>
      `${h.httpStatus} ${h.status} [${h.problems.map((p) => p.reason).join()}] readStore=${h.readStore} nats=${h.nats} leader=${h.leader} holder=${h.projection.leaseHolder?.slice(0, 14)}`;
    console.log(`      cut-off holder: ${summary(cutHealth)}; standby: ${summary(await health(standby.url))}`);
    for (const url of apis) {
      const seen = await health(url);
      console.log(`      API: ${summary(seen)}`);
      assert.equal(seen.projection.leaseHolder, standbyOwner, 'the API hosts see the new lease holder');
      assert.equal(seen.readStore, 'up');
    }
    // Longer than the lease, as the store's clock measures it (the takeover proves it expired).
    assert.ok(Date.now() - cutAt > LEASE_MS);

    const healedAt = Date.now();
    hosts.heal(holder.host);
    await waitUntil(async () => (await fencedWrites(holder.url)) >= 1, 'the former holder’s late write refused and counted');
    const fencedMs = Date.now() - healedAt;
    await waitUntil(async () => {
      const seen = await health(holder.url);
      return seen.readStore === 'up' && seen.leader === false && seen.projection.leaseHolder === standbyOwner;
    }, 'the healed former holder seeing MongoDB again and the standby as holder');
    assert.equal((await health(standby.url)).leader, true, 'one writer: the standby keeps the lease');

    const after = await two.post('/api/v2/filters', newFilter('after the heal', 'epsilon'));
    assert.equal(after.status, 200);
    await assertReadModelsEqualTheLog(standbyOwner);
    const listed = await Promise.all([one.get('/api/v2/filters'), two.get('/api/v2/filters')]);
    for (const list of listed) {
      assert.deepEqual(list.body.map((f: { title: string }) => f.title).sort(), ['after the heal', 'during the cut', 'kept']);
      const keywords = list.body.find((f: { title: string }) => f.title === 'kept').keywords.map((k: { keyword: string }) => k.keyword);
      assert.deepEqual(keywords, ['alpha'], 'the removed keyword stays removed');
    }
    console.log(
      `      takeover ${takeoverMs} ms after the cut; the late write refused ${fencedMs} ms after the heal; cut-off /health answered in ${cutHealth.tookMs} ms`,
    );
  });

  async function assertReadModelsEqualTheLog(holder: string): Promise<void> {
    const events = SqliteEventStore.inDataDir(dir);
    const reads = await MongoReadStore.connect(mongodbUrl, database);
    try {
      let last = 0n;
      for await (const event of readWholeLog(events)) last = event.position;
      await waitUntil(async () => ((await reads.checkpoint(FILTERS_PROJECTION)) ?? -1n) >= last, 'the read models taking in the whole log');
      assert.deepEqual(await reads.listFilters(accountId), await filtersAsOf(events, accountId, { position: last }));
      assert.equal((await reads.leaseHolder(FILTERS_LEASE))?.owner, holder);
    } finally {
      await Promise.all([events.close(), reads.close()]);
    }
  }
});
