import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { byAccount, increasing, streamContents } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

const metric = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

interface Health {
  status: string;
  nats: string;
  announcements: { channel: string; state: string; waitingCommits: number; delivery: string }[];
}

describe('NATS outages: announcements wait in the log', function () {
  this.timeout(90_000);
  let nats: OwnNatsServer;
  const services: RunningService[] = [];

  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    nats = await OwnNatsServer.start();
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await nats?.stop();
  });

  const start = async (dir: string, logger = capturedLogger('info').logger) => {
    const service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', NATS_URL: nats.url }), logger });
    services.push(service);
    return service;
  };
  const health = async (service: RunningService) => {
    const response = await fetch(`${service.url}/health`);
    return { code: response.status, body: (await response.json()) as Health };
  };

  it('starts and serves without NATS, reports it degraded (200), and announces what waited once NATS comes', async () => {
    await nats.stop();
    const dir = scratchDir();
    const log = capturedLogger('info');
    const service = await start(dir, log.logger);
    const owner = await newOwner(dir);
    const api = filtersApi(service.url, owner.token);
    assert.equal((await api.post('/api/v2/filters', newFilter('a'))).status, 200, 'writes need no NATS');
    assert.equal((await api.post('/api/v2/filters', newFilter('b'))).status, 200);
    assert.equal((await api.get('/api/v2/filters')).body.length, 2);
    const down = await health(service);
    assert.equal(down.code, 200);
    assert.equal(down.body.status, 'degraded');
    assert.deepEqual(
      down.body.announcements.map((a) => [a.channel, a.state, a.waitingCommits]),
      [['nats', 'connecting', 2]],
    );
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    assert.equal(metric(metrics, 'announcement_transport_up{channel="nats"}'), 0);
    assert.equal(metric(metrics, 'announcements_waiting_commits{channel="nats"}'), 2);
    assert.ok(metric(metrics, 'announcements_lag_seconds{channel="nats"}') >= 0);
    assert.ok(log.lines.some((l) => /NATS unreachable at start/.test(String(l.msg))));

    await nats.resume();
    // The service reaches NATS on its next attempt, then creates the stream.
    await waitUntil(async () => (await health(service)).body.announcements[0]!.state === 'connected', 'the service connected to NATS');
    await waitUntil(async () => (await health(service)).body.announcements[0]!.waitingCommits === 0, 'nothing waits any more');
    const stream = await streamContents(nats.url, 2);
    assert.deepEqual(
      stream.map((c) => c.accountId),
      [owner.accountId, owner.accountId],
    );
    assert.equal((await health(service)).body.announcements[0]!.waitingCommits, 0);
  });

  it('loses nothing when the service stops during an outage: its successor announces from the stored checkpoint', async () => {
    const dir = scratchDir();
    const owner = await newOwner(dir);
    const first = await start(dir);
    const before = filtersApi(first.url, owner.token);
    assert.equal((await before.post('/api/v2/filters', newFilter('before'))).status, 200);
    await streamContents(nats.url, 1);

    await nats.stop();
    for (const title of ['during 1', 'during 2', 'during 3']) assert.equal((await before.post('/api/v2/filters', newFilter(title))).status, 200);
    assert.equal((await health(first)).body.announcements[0]!.waitingCommits, 3);
    await first.close();
    services.splice(services.indexOf(first), 1);

    const second = await start(dir);
    assert.equal((await filtersApi(second.url, owner.token).post('/api/v2/filters', newFilter('after'))).status, 200);
    await nats.resume();
    const stream = await streamContents(nats.url, 5);
    const { positions, duplicates } = byAccount(stream);
    assert.deepEqual(duplicates, []);
    assert.equal(positions.get(owner.accountId)?.length, 5, 'each of the five changes once');
    assert.ok(increasing(positions.get(owner.accountId)!), 'in log order');
  });
});
