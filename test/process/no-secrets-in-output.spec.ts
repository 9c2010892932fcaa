import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfiguredNatsServer, natsServerMissing } from '../support/configured-nats-server.ts';
import { NodeProcess } from '../support/node-process.ts';
import { freePort, OwnRedis, REDIS_SERVER } from '../support/redis-server.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// Every secret a setting can carry, each a distinct string that no other text would contain.
const SECRETS = {
  nats: 'NatsPw-7f3a91',
  natsToken: 'NatsTok-2c8e55',
  redis: 'RedisPw-9b2c04',
  mongo: 'MongoPw-51aa73',
  esdb: 'EsdbPw-0d6e18',
  smtp: 'SmtpPw-41d8c2',
  access: 'AccessTok-77e1f0',
  bearer: 'BearerTok-3a9b6d',
  request: 'ReqTok-c4f2e9',
};

/** Everything a process said and wrote: its stdout and stderr lines, and every file in its log directory. */
function everything(lines: readonly unknown[], logDir?: string): string {
  let text = lines.map((line) => JSON.stringify(line)).join('\n');
  if (logDir) for (const name of readdirSync(logDir)) text += `\n${readFileSync(join(logDir, name), 'utf8')}`;
  return text;
}

function assertNoSecret(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `${where} shows the ${name} secret:\n${text}`);
}

describe('no secret of any setting reaches any output of any process', function () {
  this.timeout(240_000);
  let nats: ConfiguredNatsServer;
  let tokenNats: ConfiguredNatsServer;
  let redis: OwnRedis;
  const closed: number[] = [];
  const processes: NodeProcess[] = [];

  before(async function () {
    const missing = natsServerMissing() ?? (REDIS_SERVER ? null : 'no redis-server binary (apt-get install redis-server)');
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    nats = await ConfiguredNatsServer.start(`authorization { user: filters, password: "${SECRETS.nats}" }\n`);
    tokenNats = await ConfiguredNatsServer.start(`authorization { token: "the-right-token" }\n`);
    redis = await OwnRedis.start({ password: SECRETS.redis });
    closed.push(await freePort(), await freePort());
  });
  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
    await nats?.stop();
    await tokenNats?.stop();
    await redis?.stop();
  });

  const working = (dir: string) => ({
    DATA_DIR: dir,
    LOG_DIR: join(dir, 'logs'),
    LOG_LEVEL: 'debug',
    NATS_URL: nats.url('nats', `filters:${SECRETS.nats}`),
    REDIS_URL: `redis://:${SECRETS.redis}@127.0.0.1:${redis.port}`,
    EVENTSTORE_URL: `esdb://admin:${SECRETS.esdb}@127.0.0.1:${closed[0]}?tls=false`,
    SMTP_URL: `smtp://mailer:${SECRETS.smtp}@127.0.0.1:${closed[1]}`,
  });

  const started = (script: string, env: Record<string, string>) => {
    const child = NodeProcess.start(script, env);
    processes.push(child);
    return child;
  };

  it('the API process: start-up, /health, /health/ready, /metrics, requests with tokens, the webmail, shutdown', async () => {
    const dir = scratchDir();
    const api = started('src/main.ts', working(dir));
    const url = await api.url();
    const bodies: string[] = [];
    for (const path of [
      '/health',
      '/health/ready',
      '/metrics',
      `/api/v2/filters?access_token=${SECRETS.access}`,
      `/webmail/?_task=logout&_token=${SECRETS.request}`,
    ]) {
      bodies.push(await (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${SECRETS.bearer}` } })).text());
    }
    // A login with a token that is not the session's: an errors.log line quoting the request URI.
    const refused = await fetch(`${url}/webmail/?_task=login&_action=login&_token=${SECRETS.request}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `_user=alice&_pass=whatever&_token=${SECRETS.request}`,
    });
    assert.equal(refused.status, 401);
    bodies.push(await refused.text());
    assert.equal(await api.kill('SIGTERM'), 0);
    assertNoSecret(bodies.join('\n'), 'an HTTP answer');
    const said = everything(api.lines, join(dir, 'logs'));
    assert.match(said, /Request security check failed .*_token=\*\*\*/, 'the refused login is in errors.log, its token hidden');
    assert.match(said, /"nats":"nats:\/\/\*\*\*@127\.0\.0\.1:\d+"/, 'the start-up line names NATS without its credentials');
    assertNoSecret(said, 'the API process');
  });

  it('the projector process and the gRPC process', async () => {
    const dir = scratchDir();
    const projector = started('src/projector-main.ts', working(dir));
    const url = await projector.url();
    assertNoSecret(await (await fetch(`${url}/health`)).text(), "the projector's /health");
    assert.equal(await projector.kill('SIGTERM'), 0);
    assertNoSecret(everything(projector.lines), 'the projector process');
    const rpc = started('src/rpc/main.ts', { ...working(dir), RPC_PORT: '0', RPC_HOST: '127.0.0.1' });
    await rpc.waitForLog((line) => line.event === 'listening');
    assert.equal(await rpc.kill('SIGTERM'), 0);
    assertNoSecret(everything(rpc.lines), 'the gRPC process');
  });

  it('NATS refusing the login (wrong password, wrong token): the service serves, and its log, /health, /health/ready and /metrics hide the secret', async () => {
    const refusals: Record<string, string>[] = [
      { NATS_URL: nats.url('nats', `filters:${SECRETS.natsToken}`) },
      { NATS_URL: tokenNats.url(), NATS_TOKEN: SECRETS.natsToken },
      { NATS_URL: tokenNats.url('nats', SECRETS.natsToken) },
    ];
    for (const env of refusals) {
      const dir = scratchDir();
      const api = started('src/main.ts', { ...working(dir), ...env });
      const url = await api.url();
      const refusal = await api.waitForLog((line) => line.event === 'nats_unreachable');
      assert.match(JSON.stringify(refusal), /Authorization Violation/i);
      const health = await fetch(`${url}/health`);
      const body = await health.text();
      assert.equal((JSON.parse(body) as { nats: string }).nats, 'connecting');
      const bodies = [body, await (await fetch(`${url}/health/ready`)).text(), await (await fetch(`${url}/metrics`)).text()];
      assert.equal(await api.kill('SIGTERM'), 0);
      assertNoSecret(bodies.join('\n'), `an HTTP answer with ${Object.keys(env).join(', ')}`);
      assertNoSecret(everything(api.lines, join(dir, 'logs')), `the API process with ${Object.keys(env).join(', ')}`);
    }
  });

  it('starts that fail: an unreadable NATS_CREDS file, an unreachable MongoDB', async () => {
    const failures: Record<string, string>[] = [
      { NATS_CREDS: join(scratchDir(), 'missing.creds') },
      { MONGODB_URL: `mongodb://filters:${SECRETS.mongo}@127.0.0.1:${closed[0]}/cf?serverSelectionTimeoutMS=300` },
    ];
    for (const env of failures) {
      const dir = scratchDir();
      const api = started('src/main.ts', { ...working(dir), ...env });
      assert.equal(await api.exited, 1, everything(api.lines));
      const said = everything(api.lines);
      assert.match(said, /"event":"start_failed"/);
      assertNoSecret(said, `a failed start with ${Object.keys(env).join(', ')}`);
    }
  });

  it('the CLI, when its stores cannot be reached', async () => {
    const dir = scratchDir();
    const events = await runCli(['events'], working(dir));
    assert.equal(events.code, 1);
    assertNoSecret(events.stdout + events.stderr, 'cli events');
    const account = await runCli(['account', 'show', 'alice'], {
      ...working(dir),
      MONGODB_URL: `mongodb://filters:${SECRETS.mongo}@127.0.0.1:${closed[0]}/cf?serverSelectionTimeoutMS=300`,
    });
    assert.equal(account.code, 1);
    assert.match(account.stderr, /^error: /);
    assertNoSecret(account.stdout + account.stderr, 'cli account show');
  });
});
