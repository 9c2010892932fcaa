import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pinnedClock } from '../support/pinned-clock.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer, type ApiResponse } from '../support/test-server.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const limits = (fields: Record<string, string>) => ({ RATE_LIMITS: 'on', ...fields });
const remaining = (answer: ApiResponse) => answer.headers.get('x-ratelimit-remaining');

describe("rate limits as Mastodon's rack-attack", function () {
  // Counts live in fixed 5-minute windows: the services' clock is pinned, so no test straddles a window's end.
  let clock = pinnedClock();
  beforeEach(() => {
    clock = pinnedClock();
  });
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await TestServer.start(env, undefined, undefined, clock);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it("counts an account down in the headers, then answers 429 with the reset time and Mastodon's body", async () => {
    const server = await start(limits({ RATE_LIMIT_AUTHENTICATED_API: '3' }));
    const { token } = await server.account();
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await server.request('GET', '/api/v2/filters', { token }));
    assert.deepEqual(
      answers.map((a) => [a.status, a.headers.get('x-ratelimit-limit'), remaining(a)]),
      [
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
        [429, '3', '0'],
      ],
    );
    const refused = answers[3]!;
    assert.deepEqual(refused.body, { error: 'Too many requests' });
    const reset = refused.headers.get('x-ratelimit-reset')!;
    assert.match(reset, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const resetMs = Date.parse(reset);
    assert.ok(resetMs > clock() && resetMs <= clock() + 300_000 && (resetMs / 1000) % 300 === 0);
    assert.equal(reset, answers[0]!.headers.get('x-ratelimit-reset'));
    // Another account has its own budget.
    const other = await server.account();
    assert.equal((await server.request('GET', '/api/v2/filters', { token: other.token })).status, 200);
  });

  it('shares one budget between two API processes on one DATA_DIR, and keeps it across a restart', async () => {
    const dir = scratchDir();
    const first = await start(limits({ DATA_DIR: dir, RATE_LIMIT_AUTHENTICATED_API: '4' }));
    const second = await start(limits({ DATA_DIR: dir, PROJECTOR: 'off', RATE_LIMIT_AUTHENTICATED_API: '4' }));
    const { token } = await first.account();
    assert.equal(remaining(await first.request('GET', '/api/v2/filters', { token })), '3');
    assert.equal(remaining(await second.request('GET', '/api/v2/filters', { token })), '2');
    await Promise.all(servers.splice(0).map((s) => s.close()));
    const restarted = await start(limits({ DATA_DIR: dir, RATE_LIMIT_AUTHENTICATED_API: '4' }));
    assert.equal(remaining(await restarted.request('GET', '/api/v2/filters', { token })), '1');
    assert.equal(remaining(await restarted.request('GET', '/api/v2/filters', { token })), '0');
    assert.equal((await restarted.request('GET', '/api/v2/filters', { token })).status, 429);
  });

  it('shares one budget in Redis between processes on different hosts (REDIS_URL), per client address without a token', async function () {
    const namespace = `cf-test-${randomBytes(6).toString('hex')}`;
    const env = limits({ REDIS_URL, REDIS_NAMESPACE: namespace, RATE_LIMIT_UNAUTHENTICATED_API: '3' });
    let one: TestServer;
    try {
      one = await start(env);
    } catch (error) {
      console.log(`      skipped: no Redis at ${REDIS_URL} (${(error as Error).message})`);
      this.skip();
    }
    const two = await start(env);
    const answers = [await one.request('GET', '/api/v2/filters'), await two.request('GET', '/api/v2/filters'), await one.request('GET', '/api/v2/filters')];
    assert.deepEqual(
      answers.map((a) => [a.status, remaining(a)]),
      [
        [401, '2'],
        [401, '1'],
        [401, '0'],
      ],
    );
    assert.equal((await two.request('GET', '/api/v2/filters')).status, 429);
  });

  it('takes the client address from X-Forwarded-For only with TRUST_PROXY', async () => {
    const env = limits({ RATE_LIMIT_UNAUTHENTICATED_API: '1' });
    const behindProxy = await start({ ...env, TRUST_PROXY: '1' });
    const from = (server: TestServer, ip: string) => server.request('GET', '/api/v2/filters', { headers: { 'x-forwarded-for': ip } });
    assert.deepEqual([(await from(behindProxy, '192.0.2.1')).status, (await from(behindProxy, '192.0.2.2')).status], [401, 401]);
    assert.equal((await from(behindProxy, '192.0.2.1')).status, 429);
    const direct = await start(env);
    assert.deepEqual([(await from(direct, '192.0.2.1')).status, (await from(direct, '192.0.2.2')).status], [401, 429]);
  });

  it('limits app registrations per client address (5 in 10 minutes)', async () => {
    const server = await start(limits({}));
    const register = () => server.request('POST', '/api/v1/apps', { json: { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } });
    for (let i = 0; i < 5; i += 1) assert.equal((await register()).status, 200);
    assert.equal((await register()).status, 429);
  });

  it("limits POSTs to the OAuth password and secret endpoints per client address (this service's own throttle), separately from the API", async () => {
    const server = await start(limits({ RATE_LIMIT_OAUTH_SIGN_IN: '2' }));
    const attempt = () => server.request('POST', '/oauth/token', { form: 'grant_type=client_credentials&client_id=a&client_secret=b' });
    assert.deepEqual([(await attempt()).status, (await attempt()).status, (await attempt()).status], [401, 401, 429]);
    assert.equal((await server.request('GET', '/.well-known/oauth-authorization-server')).status, 200);
  });

  it("gives the budget back on the window's first millisecond, not before", async () => {
    // The last millisecond of a 5-minute window (the pinned clock stands 1 s into one).
    let nowMs = clock() - 1000 + 300_000 - 1;
    const server = await TestServer.start(limits({ RATE_LIMIT_AUTHENTICATED_API: '2' }), undefined, undefined, () => nowMs);
    servers.push(server);
    const { token } = await server.account();
    const list = () => server.request('GET', '/api/v2/filters', { token });
    const [first, second, third] = [await list(), await list(), await list()];
    assert.deepEqual(
      [first, second, third].map((a) => [a.status, remaining(a)]),
      [
        [200, '1'],
        [200, '0'],
        [429, '0'],
      ],
    );
    nowMs += 1;
    const next = await list();
    assert.deepEqual([next.status, remaining(next)], [200, '1']);
    assert.equal(Date.parse(next.headers.get('x-ratelimit-reset')!), Date.parse(first.headers.get('x-ratelimit-reset')!) + 300_000);
  });

  it('is off with RATE_LIMITS=off: no headers, no 429', async () => {
    const server = await start({ RATE_LIMITS: 'off', RATE_LIMIT_AUTHENTICATED_API: '1' });
    const { token } = await server.account();
    for (let i = 0; i < 3; i += 1) {
      const answer = await server.request('GET', '/api/v2/filters', { token });
      assert.deepEqual([answer.status, remaining(answer)], [200, null]);
    }
  });
});
