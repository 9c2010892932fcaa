import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { ServiceHealth } from '../../src/health/service-health.ts';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { StaleWrites } from '../../src/projections/runtime/stale-writes.ts';
import { ReadStoreUnavailableError, type ProjectionBatch } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { openStores } from '../../src/composition-root.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { faultyReadStore, gate, type BatchHook } from '../support/faulty-read-store.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
};
const health = async (service: RunningService) => {
  const { status, text } = await get(`${service.url}/health`);
  return { status, body: JSON.parse(text) };
};
const sample = (text: string, series: string) =>
  text
    .split('\n')
    .find((l) => l.startsWith(`${series} `))
    ?.slice(series.length + 1);
const reasons = (body: { problems: { reason: string }[] }) => body.problems.map((p) => p.reason);

function filterCreated(accountId: string) {
  const filterId = newId();
  const data = { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: new Date().toISOString() };
  const metadata = { accountId, requestId: 'r', apiVersion: 'v2', tokenId: null, commitIndex: 0, commitSize: 1 };
  return { stream: filterStream(filterId), events: [{ type: 'FilterCreated', data, metadata }] };
}

describe('GET /health', () => {
  const services: RunningService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  });

  const serve = async (env: Record<string, string> = {}, hook?: BatchHook, catchUpTimeoutMs?: number) => {
    const dir = scratchDir();
    const config = loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', ...env });
    const stores = await openStores(config, silentLogger);
    const service = await startService({
      config,
      logger: silentLogger,
      stores: hook ? { ...stores, reads: faultyReadStore(stores.reads, hook) } : stores,
      ...(catchUpTimeoutMs ? { catchUpTimeoutMs } : {}),
    });
    services.push(service);
    return { service, dir };
  };

  it('answers 200 with both stores up, the projection caught up and where announcements go', async () => {
    const { service } = await serve();
    const { status, body } = await health(service);
    assert.equal(status, 200);
    assert.deepEqual(
      { ...body, owner: typeof body.owner, projection: { ...body.projection, leaseHolder: body.projection.leaseHolder === body.owner } },
      {
        status: 'ok',
        problems: [],
        eventStore: 'up',
        readStore: 'up',
        accountStore: 'up',
        nats: 'off',
        announcements: [],
        leader: true,
        owner: 'string',
        staleWrites: 0,
        projection: { checkpoint: null, lagSeconds: 0, leaseHolder: true, parkedEvents: 0, lastParkedPosition: null },
      },
    );
  });

  it('counts the events of a parked commit and names where it ended in the log', async () => {
    const { service } = await serve({}, (batch) => {
      if (batch.views.some((view) => view.title === 'poison')) throw new Error('cannot store this filter');
    });
    const accountId = newId();
    const commit = filterCreated(accountId);
    const [created] = commit.events;
    const keywords = {
      type: 'KeywordsUpdated',
      data: { filterId: created!.data.filterId, keywords: [{ id: newId(), keyword: 'k', wholeWord: true }], updatedAt: created!.data.createdAt },
      metadata: { ...created!.metadata, commitIndex: 1, commitSize: 2 },
    };
    const events = [{ ...created!, data: { ...created!.data, title: 'poison' }, metadata: { ...created!.metadata, commitSize: 2 } }, keywords];
    const { position } = await service.stores.events.appendToStream(commit.stream, events, 'no_stream');
    assert.equal(await service.projector!.waitFor(position, 60_000), true, 'parking moves the checkpoint past the commit');
    const { status, body } = await health(service);
    assert.equal(status, 200);
    assert.equal(body.projection.parkedEvents, 2);
    assert.equal(body.projection.lastParkedPosition, String(position));
    assert.deepEqual(await service.stores.reads.listFilters(accountId), []);
  });

  it('answers 503 projection_failing with the position while a step keeps failing, counted in /metrics, and 200 once it moves', async () => {
    const retried = gate();
    const outage = gate();
    const { service } = await serve({}, async (_batch, call) => {
      if (call === 2) retried.open();
      if (call <= 2) throw new ReadStoreUnavailableError('disk unplugged');
      await outage.promise;
    });
    const commit = filterCreated(newId());
    const { position } = await service.stores.events.appendToStream(commit.stream, commit.events, 'no_stream');
    await retried.promise;
    const failing = await health(service);
    assert.equal(failing.status, 503);
    assert.deepEqual(reasons(failing.body), ['projection_failing']);
    assert.deepEqual(
      { ...failing.body.problems[0], since: '' },
      {
        reason: 'projection_failing',
        stage: 'apply',
        position: String(position),
        error: 'ReadStoreUnavailableError: disk unplugged',
        failures: failing.body.problems[0].failures,
        since: '',
      },
    );
    const metrics = (await get(`${service.url}/metrics`)).text;
    assert.equal(sample(metrics, 'projector_failing'), '1');
    assert.ok(Number(sample(metrics, 'projector_step_failures_total{stage="apply"}')) >= 1);
    outage.open();
    assert.equal(await service.projector!.waitFor(position, 15_000), true);
    assert.equal((await health(service)).status, 200);
  });

  it('answers 503 write_not_visible after a write was answered before the read models had it, until they pass it', async () => {
    const held = gate();
    const { service, dir } = await serve({}, (batch: ProjectionBatch) => (batch.views.length > 0 ? held.promise : undefined), 200);
    const owner = await newOwner(dir);
    const written = await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter('answered early'));
    assert.equal(written.status, 200, 'the write itself succeeded');
    const stale = await health(service);
    assert.equal(stale.status, 503);
    assert.deepEqual(reasons(stale.body), ['write_not_visible']);
    assert.equal(stale.body.staleWrites, 1);
    assert.equal(sample((await get(`${service.url}/metrics`)).text, 'read_your_writes_timeouts_total'), '1');
    held.open();
    assert.equal(await service.projector!.waitFor(BigInt(stale.body.problems[0].position), 15_000), true);
    const after = await health(service);
    assert.equal(after.status, 200);
    assert.equal(after.body.staleWrites, 1, 'the count stays');
  });

  it('answers 503 projector_stalled when no projector holds the lease', async () => {
    const { service } = await serve({ PROJECTOR: 'off' });
    const { status, body } = await health(service);
    assert.equal(status, 503);
    assert.deepEqual(reasons(body), ['projector_stalled']);
    assert.equal(body.leader, undefined, 'this process runs no projector');
  });

  it('answers 503 read_store_unreachable while the read store is down, and /metrics keeps answering', async () => {
    const { service } = await serve();
    await service.stores.reads.close();
    const { status, body } = await health(service);
    assert.equal(status, 503);
    assert.ok(reasons(body).includes('read_store_unreachable'), JSON.stringify(body));
    assert.equal(body.readStore, 'down');
    const metrics = await get(`${service.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.equal(sample(metrics.text, 'store_up{store="read_models"}'), '0');
    assert.equal(sample(metrics.text, 'store_up{store="events"}'), '1');
    assert.match(sample(metrics.text, 'projector_position') ?? '', /^nan$/i, 'unknown, not a made-up position');
  });
});

describe('ServiceHealth', () => {
  it('says projector_lagging once the oldest event not yet projected is older than the bound', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    try {
      const commit = filterCreated(newId());
      await events.appendToStream(commit.stream, commit.events, 'no_stream');
      await reads.tryLease(FILTERS_LEASE, 'a projector elsewhere', 60_000);
      const at = (now: number) =>
        new ServiceHealth({
          events,
          reads,
          notifier: new InProcessBus(),
          projector: null,
          staleWrites: new StaleWrites(),
          maxLagMs: 5000,
          now: () => now,
        }).report();
      const fresh = await at(Date.now());
      assert.deepEqual(fresh.problems, []);
      const late = await at(Date.now() + 30_000);
      assert.equal(late.status, 'unavailable');
      assert.deepEqual(
        late.problems.map((p) => p.reason),
        ['projector_lagging'],
      );
      assert.ok((late.problems[0] as { lagSeconds: number }).lagSeconds >= 30);
      assert.equal((late.problems[0] as { maxLagSeconds: number }).maxLagSeconds, 5);
    } finally {
      await Promise.all([events.close(), reads.close()]);
    }
  });
});
