import assert from 'node:assert/strict';
import { AccessDeniedError, CancelledError, UnknownError } from '@eventstore/db-client';
import { loadConfig } from '../../src/config.ts';
import { translateEsdbError } from '../../src/events/esdb-errors.ts';
import { EventStoreUnavailableError } from '../../src/events/event-store.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { filtersApi, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const filter = { title: 't', context: ['home'], keywords_attributes: [{ keyword: 'k' }] };

describe('EventStoreDB adapter: errors the client raises, in the port’s words', () => {
  it('takes UnknownError (a not-ready or busy BatchAppend), CancelledError (reconnect) as unavailability', () => {
    for (const error of [new UnknownError(undefined, 'Could not recognize Server Is Not Ready'), new CancelledError()]) {
      const translated = translateEsdbError(error);
      assert.ok(translated instanceof EventStoreUnavailableError, String(error));
      assert.equal(translated.reason, 'unreachable');
    }
  });

  it('takes AccessDenied as unavailability with a reason of its own', () => {
    const translated = translateEsdbError(new AccessDeniedError());
    assert.ok(translated instanceof EventStoreUnavailableError);
    assert.equal(translated.reason, 'access_denied');
  });
});

// Writes refused the way an EventStoreDB node refuses them, by the gRPC protocol STAND-IN (not a server).
for (const appendCall of ['BatchAppend', 'Append'] as const) {
  describe(`the service on EventStoreDB when the node refuses writes (protocol stand-in, not a server, ${appendCall})`, function () {
    this.timeout(30_000);
    let standIn: EsdbStandIn;
    let service: RunningService;
    let api: ReturnType<typeof filtersApi>;
    let token: string;
    before(async () => {
      standIn = await EsdbStandIn.start({ appendCall });
      const dataDir = scratchDir();
      service = await startService({
        config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', EVENTSTORE_URL: standIn.url }),
        logger: silentLogger,
      });
      token = (await newOwner(dataDir)).token;
      api = filtersApi(service.url, token);
    });
    after(async () => {
      await service.close();
      await standIn.stop();
    });
    afterEach(() => {
      standIn.gate.refuse = null;
    });

    for (const refusal of ['not_ready', 'busy'] as const) {
      it(`answers 503 with Retry-After while the node is ${refusal.replace('_', ' ')}, and 200 once it takes writes`, async () => {
        standIn.gate.refuse = refusal;
        const refused = await fetch(`${service.url}/api/v2/filters`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(filter),
        });
        const body = (await refused.json()) as { error?: unknown };
        assert.equal(refused.status, 503, JSON.stringify(body));
        assert.ok(refused.headers.get('retry-after'));
        assert.equal(typeof body.error, 'string');
        standIn.gate.refuse = null;
        assert.equal((await api.post('/api/v2/filters', filter)).status, 200);
      });
    }
  });
}

// A secured node (TLS, users, ACLs) by the gRPC protocol STAND-IN (not a server).
describe('the service on a secured EventStoreDB (protocol stand-in, not a server)', function () {
  this.timeout(30_000);
  let standIn: EsdbStandIn;
  const services: RunningService[] = [];
  const serviceAs = async (user: string) => {
    const dataDir = scratchDir();
    const service = await startService({
      config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', EVENTSTORE_URL: standIn.urlAs(user) }),
      logger: silentLogger,
    });
    services.push(service);
    return { service, token: (await newOwner(dataDir)).token };
  };
  before(async () => {
    standIn = await EsdbStandIn.start({ secure: true });
  });
  after(async () => {
    await Promise.all(services.map((s) => s.close()));
    await standIn.stop();
  });

  it('names access denied as its own /health reason when its user may not read $all', async () => {
    const { service } = await serviceAs('ops');
    const health = await fetch(`${service.url}/health`);
    const body = (await health.json()) as { problems: Array<{ reason: string; detail?: string }> };
    assert.equal(health.status, 503);
    const problem = body.problems.find((p) => p.reason === 'event_store_access_denied');
    assert.ok(problem, JSON.stringify(body.problems));
    assert.match(problem.detail ?? '', /\$all/);
    assert.ok(!body.problems.some((p) => p.reason === 'event_store_unreachable'));
  });

  it('works over TLS as an $admins member', async () => {
    const { service, token } = await serviceAs('admin');
    const api = filtersApi(service.url, token);
    assert.equal((await api.post('/api/v2/filters', filter)).status, 200);
    assert.equal((await api.get('/api/v2/filters')).body.length, 1);
  });
});
