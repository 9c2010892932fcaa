import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const count = (metrics: string, labels: string): number => {
  const line = metrics.split('\n').find((l) => l.startsWith(`http_requests_total{${labels}} `));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
};

// A series per route template, whatever answered: v1 and v2 failures, webmail actions and preflights apart.
describe('http_requests_total labels and the request log line', function () {
  this.timeout(30_000);
  let service: RunningService;
  const { logger, lines } = memoryLogger();
  let readOnly: string;
  let accountId: string;

  before(async () => {
    const config = loadConfig({ DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', TRUST_PROXY: 'on' });
    service = await startService({ config, logger });
    const account = await service.stores.accounts.createAccount(`labels${process.pid}`);
    accountId = account.id;
    readOnly = await service.stores.accounts.createToken(account.id, ['read:filters']);
  });
  after(() => service?.close());

  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();
  const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    (await fetch(`${service.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })).status;

  it('labels a 401 or 403 with the route template it was for, v1 apart from v2', async () => {
    const before = await metrics();
    assert.equal(await send('GET', '/api/v2/filters'), 401);
    assert.equal(await send('GET', '/api/v1/filters'), 401);
    assert.equal(await send('GET', '/api/v2/filters/123/keywords'), 401);
    assert.equal(await send('POST', '/api/v2/filters', { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' }, '{}'), 403);
    const after = await metrics();
    for (const [labels, added] of [
      ['method="GET",route="/api/v2/filters",status="401"', 1],
      ['method="GET",route="/api/v1/filters",status="401"', 1],
      ['method="GET",route="/api/v2/filters/:filterId/keywords",status="401"', 1],
      ['method="POST",route="/api/v2/filters",status="403"', 1],
    ] as const) {
      assert.equal(count(after, labels) - count(before, labels), added, labels);
    }
    assert.doesNotMatch(after, /route="\(\?:/);
  });

  it('labels webmail requests by _task/_action (unknown ones as other), preflights and 404s apart', async () => {
    assert.equal(await send('GET', '/webmail/?_task=login'), 200);
    await send('POST', '/webmail/?_task=mail&_action=refresh', { 'content-type': 'application/x-www-form-urlencoded' }, '_mbox=INBOX');
    await send('GET', '/webmail/?_task=mail&_action=x9f8e7d6c5');
    assert.equal(await send('OPTIONS', '/api/v2/filters', { origin: 'https://elk.zone', 'access-control-request-method': 'POST' }), 200);
    assert.equal(await send('GET', '/no/such/path'), 404);
    const after = await metrics();
    assert.ok(count(after, 'method="GET",route="webmail login/",status="200"') >= 1, after);
    assert.match(after, /http_requests_total\{method="POST",route="webmail mail\/refresh",status="\d+"\}/);
    assert.match(after, /http_requests_total\{method="GET",route="webmail mail\/other",status="\d+"\}/);
    assert.doesNotMatch(after, /x9f8e7d6c5/);
    assert.match(after, /http_requests_total\{method="OPTIONS",route="cors preflight",status="200"\}/);
    assert.match(after, /http_requests_total\{method="GET",route="unmatched",status="404"\}/);
  });

  it('logs one request line with the client address behind the proxy, user agent, account, token id, numeric status and route', async () => {
    const status = await send('GET', '/api/v2/filters?access_token=never-logged', {
      authorization: `Bearer ${readOnly}`,
      'user-agent': 'label-test/1.0',
      'x-forwarded-for': '203.0.113.9',
    });
    assert.equal(status, 200);
    const line = lines.filter((l) => l.msg === 'request' && l.path === '/api/v2/filters').at(-1);
    assert.ok(line, 'a request line');
    assert.equal(line.event, 'request');
    assert.equal(line.status, 200);
    assert.equal(line.route, '/api/v2/filters');
    assert.equal(line.ip, '203.0.113.9');
    assert.equal(line.userAgent, 'label-test/1.0');
    assert.equal(line.accountId, accountId);
    assert.equal(line.tokenId, readOnly.split('_')[0]);
    assert.ok(!JSON.stringify(line).includes('never-logged'));
  });
});

describe('what operators chart beside the HTTP series', function () {
  this.timeout(30_000);
  let service: RunningService;
  let token: string;
  const dataDir = scratchDir();

  before(async () => {
    service = await startService({
      config: loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }),
      logger: memoryLogger().logger,
    });
    const account = await service.stores.accounts.createAccount(`charts${process.pid}`);
    token = await service.stores.accounts.createToken(account.id, ['read:filters']);
  });
  after(() => service?.close());

  const sample = (metrics: string, series: string) =>
    Number(
      metrics
        .split('\n')
        .find((l) => l.startsWith(`${series} `))
        ?.split(' ')[1] ?? 0,
    );
  const metrics = async () => (await fetch(`${service.url}/metrics`)).text();

  it('counts matching requests by outcome, their statuses and their duration; and a build_info gauge with the version', async () => {
    const before = await metrics();
    const match = (body: string) =>
      fetch(`${service.url}/api/v2/filters/match`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    assert.equal(
      (
        await match(
          JSON.stringify({
            statuses: [
              { id: '1', content: 'a' },
              { id: '2', content: 'b' },
            ],
          }),
        )
      ).status,
      200,
    );
    assert.equal((await match('{"statuses":"all"}')).status, 422);
    const after = await metrics();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(delta('filter_match_requests_total{transport="http",outcome="ok"}'), 1);
    assert.equal(delta('filter_match_requests_total{transport="http",outcome="bad_request"}'), 1);
    assert.equal(delta('filter_match_statuses_total{transport="http"}'), 2);
    assert.equal(delta('filter_match_duration_seconds_count{transport="http"}'), 2);
    assert.match(after, /^content_filters_build_info\{version="\d+\.\d+\.\d+[^"]*",node="v\d+\.\d+\.\d+"\} 1$/m);
  });

  it('counts webmail logins by outcome', async () => {
    const before = await metrics();
    const page = await fetch(`${service.url}/webmail/?_task=login`);
    const cookie = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
    const requestToken = /name="_token" value="([0-9A-Za-z]+)"/.exec(await page.text())?.[1];
    assert.ok(requestToken, 'the login form carries a request token');
    const login = (token: string) =>
      fetch(`${service.url}/webmail/?_task=login&_action=login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `_user=nobody${process.pid}&_pass=wrong&_token=${token}`,
      });
    assert.equal((await login(requestToken)).status, 401);
    assert.equal((await login('forged')).status, 401);
    const after = await metrics();
    assert.equal(sample(after, 'webmail_logins_total{outcome="failed"}') - sample(before, 'webmail_logins_total{outcome="failed"}'), 1);
    assert.equal(sample(after, 'webmail_logins_total{outcome="invalid_request"}') - sample(before, 'webmail_logins_total{outcome="invalid_request"}'), 1);
    // The logs name users and addresses: created readable by their owner and group only.
    for (const name of ['userlogins.log', 'errors.log']) assert.equal(statSync(join(dataDir, 'logs', name)).mode & 0o777, 0o640, name);
  });
});
