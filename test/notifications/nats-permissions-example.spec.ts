import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from 'nats';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { ConfiguredNatsServer, natsServerMissing } from '../support/configured-nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const EXAMPLE = fileURLToPath(new URL('../../docs/examples/nats-server.conf', import.meta.url));
const PASSWORDS = { CONTENT_FILTERS_NATS_PASSWORD: 'service-pw-e1b7', TIMELINE_NATS_PASSWORD: 'timeline-pw-99c3' };
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

// The shipped example, started as it is: only timeline services may ask, and only the service answers.
describe('docs/examples/nats-server.conf: who may ask NATS', function () {
  this.timeout(60_000);
  let nats: ConfiguredNatsServer;
  let service: RunningService;
  const clients: NatsConnection[] = [];
  let accountId: string;

  before(async function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    nats = await ConfiguredNatsServer.startFile(EXAMPLE, scratchDir('nats-example-'), PASSWORDS);
    const config = loadConfig({
      DATA_DIR: scratchDir(),
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMITS: 'off',
      NATS_URL: nats.url('nats', `content-filters:${PASSWORDS.CONTENT_FILTERS_NATS_PASSWORD}`),
    });
    service = await startService({ config, logger: silentLogger });
    const account = await service.stores.accounts.createAccount(`perm${process.pid}`);
    accountId = account.id;
    const token = await service.stores.accounts.createToken(account.id, ['read:filters', 'write:filters']);
    const created = await fetch(`${service.url}/api/v2/filters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'spoilers', context: ['home'], keywords_attributes: [{ keyword: 'finale' }] }),
    });
    assert.equal(created.status, 200);
  });
  after(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await service?.close();
    await nats?.stop();
  });

  const as = async (user: string, password: string) => {
    const client = await connect({ servers: nats.url(), user, pass: password });
    clients.push(client);
    return client;
  };
  const ask = (client: NatsConnection) =>
    client.request(`filters.match.${accountId}`, encode({ statuses: [{ id: '1', content: '<p>The finale was great</p>' }] }), { timeout: 10_000 });

  it('a timeline service (publish filters.match.>) gets the answer', async () => {
    const timeline = await as('timeline', PASSWORDS.TIMELINE_NATS_PASSWORD);
    const reply = JSON.parse((await ask(timeline)).string()) as { results: Record<string, { keyword_matches: string[] }[]> };
    assert.deepEqual(
      reply.results['1']!.map((result) => result.keyword_matches),
      [['finale']],
    );
  });

  it('a connection without that permission gets no answer: its request is refused by the server', async () => {
    const other = await as('content-filters', PASSWORDS.CONTENT_FILTERS_NATS_PASSWORD);
    await assert.rejects(ask(other), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'PERMISSIONS_VIOLATION', error.message);
      return true;
    });
  });

  it('a timeline service may not subscribe on filters.match.> to answer in the service’s place', async () => {
    const timeline = await as('timeline', PASSWORDS.TIMELINE_NATS_PASSWORD);
    const impostor = timeline.subscribe('filters.match.>');
    await assert.rejects(
      (async () => {
        for await (const message of impostor) assert.fail(`an impostor heard ${message.subject}`);
      })(),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'PERMISSIONS_VIOLATION', error.message);
        return true;
      },
    );
  });

  it('a connection with the wrong password is refused', async () => {
    await assert.rejects(connect({ servers: nats.url(), user: 'timeline', pass: 'not-it' }), /Authorization Violation/i);
  });
});
