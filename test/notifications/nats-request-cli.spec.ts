import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { ConfiguredNatsServer, natsServerMissing } from '../support/configured-nats-server.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// docs/timeline-services.md asks NATS with this command instead of the NATS CLI, which nothing installs.
describe('content-filters nats-request (the docs’ way to ask filters.match.<account_id>)', function () {
  this.timeout(60_000);
  let nats: ConfiguredNatsServer;
  let service: RunningService;
  let accountId: string;
  let env: Record<string, string>;

  before(async function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    nats = await ConfiguredNatsServer.start('authorization { token: "cli-request-token" }\n');
    env = { NATS_URL: nats.url(), NATS_TOKEN: 'cli-request-token', DATA_DIR: scratchDir() };
    service = await startService({ config: loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    const account = await service.stores.accounts.createAccount(`natscli${process.pid}`);
    accountId = account.id;
    const token = await service.stores.accounts.createToken(account.id, ['write:filters']);
    const created = await fetch(`${service.url}/api/v2/filters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'TV spoilers', context: ['home', 'public'], keywords_attributes: [{ keyword: 'finale' }] }),
    });
    assert.equal(created.status, 200);
  });
  after(async () => {
    await service?.close();
    await nats?.stop();
  });

  it('prints the reply of the service, with the NATS settings of the service', async () => {
    const asked = await runCli(
      ['nats-request', `filters.match.${accountId}`, '{"statuses":[{"id":"1","content":"<p>The finale was great</p>"}],"context":"home"}'],
      env,
    );
    assert.equal(asked.code, 0, asked.stderr);
    const reply = JSON.parse(asked.stdout) as { results: Record<string, { filter: { title: string }; keyword_matches: string[]; status_matches: null }[]> };
    assert.deepEqual(
      reply.results['1']!.map((r) => [r.filter.title, r.keyword_matches, r.status_matches]),
      [['TV spoilers', ['finale'], null]],
    );
    const bad = await runCli(['nats-request', `filters.match.${accountId}`, '{"statuses":"all"}'], env);
    assert.equal(bad.stdout, '{"error":"statuses is invalid"}\n');
  });

  it('says so when nobody answers or NATS_URL is missing', async () => {
    const nobody = await runCli(['nats-request', 'nobody.listens.here', '{}'], env);
    assert.equal(nobody.code, 1);
    assert.equal(nobody.stderr, 'error: no one answers on nobody.listens.here\n');
    const unset = await runCli(['nats-request', 'x', '{}'], { DATA_DIR: env.DATA_DIR!, NATS_URL: '' });
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /^error: NATS_URL is not set/);
  });
});
