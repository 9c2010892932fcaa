import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { openStores } from '../../src/composition-root.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const probe = async (service: RunningService, path: string) => {
  const response = await fetch(`${service.url}${path}`);
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type') ?? '', text, body: JSON.parse(text) as Record<string, unknown> };
};
const reasons = (problems: unknown) => (problems as { reason: string }[]).map((p) => p.reason);

// A liveness probe that fails restarts the container: it must not depend on a projector or a store.
describe('GET /health/live and /health/ready', function () {
  this.timeout(60_000);
  const services: RunningService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  });
  const serve = async (env: Record<string, string>) => {
    const service = await startService({
      config: loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', ...env }),
      logger: silentLogger,
    });
    services.push(service);
    return service;
  };

  it('given an API process without any projector: /health is 503 projector_stalled, live and ready are 200', async () => {
    const service = await serve({ PROJECTOR: 'off' });
    const health = await probe(service, '/health');
    assert.equal(health.status, 503);
    assert.deepEqual(reasons(health.body.problems), ['projector_stalled']);
    const live = await probe(service, '/health/live');
    assert.equal(live.status, 200);
    assert.match(live.type, /^application\/json/);
    assert.deepEqual(live.body, { status: 'live' });
    const ready = await probe(service, '/health/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.deepEqual(ready.body.problems, []);
    assert.deepEqual(reasons(ready.body.degraded), ['projector_stalled']);
  });

  it('given an account store that fails: /health and /health/ready are 503 account_store_unreachable, and recover', async () => {
    const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' });
    const stores = await openStores(config, silentLogger);
    let failing = false;
    const accounts = new Proxy(stores.accounts, {
      get: (target, key, receiver) =>
        key === 'findAccount' && failing ? () => Promise.reject(new Error('accounts: disk I/O error')) : (Reflect.get(target, key, receiver) as unknown),
    });
    const service = await startService({ config, logger: silentLogger, stores: { ...stores, accounts } });
    services.push(service);
    assert.equal((await probe(service, '/health')).body.accountStore, 'up');
    failing = true;
    const health = await probe(service, '/health');
    assert.equal(health.status, 503);
    assert.equal(health.body.accountStore, 'down');
    assert.deepEqual(reasons(health.body.problems), ['account_store_unreachable']);
    const ready = await probe(service, '/health/ready');
    assert.equal(ready.status, 503);
    assert.deepEqual(reasons(ready.body.problems), ['account_store_unreachable']);
    failing = false;
    assert.equal((await probe(service, '/health/ready')).status, 200);
  });

  it('given NATS that cannot be reached: /health is 200 degraded, live and ready are 200 (announcements wait in the log)', async () => {
    const service = await serve({ NATS_URL: `nats://127.0.0.1:${await closedPort()}` });
    const health = await probe(service, '/health');
    assert.equal(health.status, 200, health.text);
    assert.equal(health.body.status, 'degraded');
    assert.equal(health.body.nats, 'connecting');
    assert.deepEqual(health.body.problems, []);
    assert.equal((await probe(service, '/health/live')).status, 200);
    const ready = await probe(service, '/health/ready');
    assert.equal(ready.status, 200, ready.text);
    assert.equal(ready.body.status, 'ready');
    assert.deepEqual(ready.body.problems, []);
  });

  it('given an event store it cannot reach: ready is 503 naming it, live stays 200, and no answer shows its password', async () => {
    const secret = 'Pr0beS3cret';
    const service = await serve({ EVENTSTORE_URL: `esdb://admin:${secret}@127.0.0.1:${await closedPort()}?tls=false` });
    const ready = await probe(service, '/health/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'unavailable');
    assert.ok(reasons(ready.body.problems).includes('event_store_unreachable'), ready.text);
    assert.equal((await probe(service, '/health/live')).status, 200);
    for (const path of ['/health', '/health/ready', '/metrics']) {
      const text = await (await fetch(`${service.url}${path}`)).text();
      assert.ok(!text.includes(secret), `${path} shows the password: ${text}`);
    }
  });
});

describe('GET /', function () {
  this.timeout(30_000);
  let service: RunningService;
  before(async () => {
    service = await startService({ config: loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
  });
  after(() => service?.close());

  it("answers a newcomer's browser with a small page that says what this is and links the webmail and the docs", async () => {
    const response = await fetch(`${service.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const page = await response.text();
    assert.match(page, /Mastodon-compatible content-filters service/);
    assert.match(page, /<a href="\/webmail\/">/);
    assert.match(page, /docs\//);
    assert.equal((await fetch(`${service.url}/`, { method: 'POST' })).status, 404);
    assert.match(await (await fetch(`${service.url}/metrics`)).text(), /http_requests_total\{method="GET",route="\/",status="200"\}/);
  });
});
