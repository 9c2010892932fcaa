import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { filtersApi, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// The whole service (commands, projector, $all subscription, read-your-writes) on the EventStoreDB
// adapter, talking to the gRPC protocol STAND-IN (test/support/esdb-stand-in.ts), not a server.
describe('the service on the EventStoreDB adapter, against the protocol stand-in (not a server)', function () {
  this.timeout(30_000);
  let standIn: EsdbStandIn;
  const services: RunningService[] = [];
  const serviceOn = async (dataDir: string) => {
    const service = await startService({
      config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', EVENTSTORE_URL: standIn.url }),
      logger: silentLogger,
    });
    services.push(service);
    return service;
  };

  before(async () => {
    standIn = await EsdbStandIn.start();
  });
  after(async () => {
    await Promise.all(services.map((s) => s.close()));
    await standIn.stop();
  });

  it('shows every keyword of an acknowledged create (two events in one append) to the next read', async () => {
    const dataDir = scratchDir();
    const service = await serviceOn(dataDir);
    const api = filtersApi(service.url, (await newOwner(dataDir)).token);
    for (let i = 0; i < 5; i += 1) {
      const created = await api.post('/api/v2/filters', {
        title: `t${i}`,
        context: ['home'],
        keywords_attributes: [{ keyword: `a${i}` }, { keyword: `b${i}` }],
      });
      assert.equal(created.status, 200);
      const v1 = await api.get('/api/v1/filters');
      assert.equal(v1.body.length, 2 * (i + 1), 'every keyword of every acknowledged create is listed at once');
    }
    // As on a 24.10 server, each event of an append is its own committed record (esdb-stand-in-log.ts).
    const ours = standIn.log.events.filter((e) => e.stream.startsWith('filter-'));
    assert.ok(ours.length >= 10);
    assert.ok(
      ours.every((e) => e.commit === e.prepare),
      'every event has commit position == prepare position',
    );
  });
});
