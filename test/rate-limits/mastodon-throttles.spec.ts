import assert from 'node:assert/strict';
import { registerApp } from '../support/oauth-flow.ts';
import { pinnedClock } from '../support/pinned-clock.ts';
import { TestServer, type ApiResponse } from '../support/test-server.ts';

const limits = (fields: Record<string, string>) => ({ RATE_LIMITS: 'on', ...fields });
const shown = (a: ApiResponse) => [a.status, a.headers.get('x-ratelimit-limit'), a.headers.get('x-ratelimit-remaining')];
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** The window's end rack-attack names: now + (period - now % period), ISO 8601 with microseconds. */
function assertResetAtWindowEnd(answer: ApiResponse, periodSeconds: number, now: number): void {
  const reset = answer.headers.get('x-ratelimit-reset')!;
  assert.match(reset, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const ms = Date.parse(reset);
  assert.ok(ms > now - 1000 && ms <= now + periodSeconds * 1000 && ms % (periodSeconds * 1000) === 0, reset);
}

describe("Mastodon's throttles (config/initializers/rack_attack.rb) and headers (api/rate_limit_headers.rb)", function () {
  // Counts live in fixed windows: the service's clock is pinned, so no test straddles a window's end.
  let clock = pinnedClock();
  beforeEach(() => {
    clock = pinnedClock();
  });
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("rack_attack_spec 'throttle excessive oauth application registration requests by IP address': 5 in 10 minutes, the headers show 5 then 4 (the most limited throttle), then throttled_responder's 429", async () => {
    server = await TestServer.start(limits({}), undefined, undefined, clock);
    const answers = [];
    for (let i = 0; i < 6; i += 1)
      answers.push(
        await server.request('POST', '/api/v1/apps', { json: { client_name: 'Throttle Test', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' } }),
      );
    assert.deepEqual(answers.map(shown), [
      [200, '5', '4'],
      [200, '5', '3'],
      [200, '5', '2'],
      [200, '5', '1'],
      [200, '5', '0'],
      [429, '5', '0'],
    ]);
    const refused = answers[5]!;
    assert.equal(refused.type, 'application/json');
    assert.deepEqual(refused.body, { error: 'Too many requests' });
    // Mastodon's throttled_responder sends no Retry-After (rack-attack's own default leaves it off too).
    assert.equal(refused.headers.get('retry-after'), null);
    assertResetAtWindowEnd(refused, 600, clock());
  });

  it('throttle_per_token_api (300 per 5 minutes for every token): a user token is refused at request 301, another token of the same user still passes', async () => {
    server = await TestServer.start(limits({}), undefined, undefined, clock);
    const account = await server.account();
    const answers = [];
    for (let i = 0; i < 301; i += 1) answers.push(await server.request('GET', '/api/v2/filters', { token: account.token }));
    assert.deepEqual(shown(answers[0]!), [200, '300', '299']);
    assert.deepEqual(shown(answers[299]!), [200, '300', '0']);
    assert.deepEqual(
      answers.slice(0, 300).filter((a) => a.status !== 200),
      [],
    );
    assert.deepEqual(shown(answers[300]!), [429, '300', '0']);
    assertResetAtWindowEnd(answers[300]!, 300, clock());
    const other = await server.token(account, ['read:filters']);
    assert.deepEqual(shown(await server.request('GET', '/api/v2/filters', { token: other })), [200, '300', '299']);
  });

  it('throttle_authenticated_api counts a user across all of its tokens (req.authenticated_user_id)', async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_AUTHENTICATED_API: '3' }), undefined, undefined, clock);
    const account = await server.account();
    const other = await server.token(account, ['read:filters']);
    const get = (token: string) => server!.request('GET', '/api/v2/filters', { token });
    assert.deepEqual(
      [shown(await get(account.token)), shown(await get(account.token)), shown(await get(other)), shown(await get(other))],
      [
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
        [429, '3', '0'],
      ],
    );
    assert.equal((await get((await server.account()).token)).status, 200);
  });

  it('throttle_unauthenticated_api counts an app-only token by address, as unauthenticated? is !authenticated_user_id', async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_UNAUTHENTICATED_API: '3', TRUST_PROXY: '1' }), undefined, undefined, clock);
    const app = await registerApp(server, 'read');
    const issued = await server.request('POST', '/oauth/token', {
      form: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }).toString(),
    });
    assert.equal(issued.status, 200);
    const appToken: string = issued.body.access_token;
    const verify = (ip: string, token?: string) =>
      server!.request('GET', '/api/v1/apps/verify_credentials', { headers: from(ip), ...(token ? { token } : {}) });
    const answers = [await verify('192.0.2.9', appToken), await verify('192.0.2.9', appToken), await verify('192.0.2.9', appToken)];
    assert.deepEqual(answers.map(shown), [
      [200, '3', '2'],
      [200, '3', '1'],
      [200, '3', '0'],
    ]);
    // The address's budget is spent by the app's token: a request without one is refused there ...
    assert.deepEqual(shown(await verify('192.0.2.9')), [429, '3', '0']);
    // ... while a user's token from it is not in that throttle, and another address has its own budget.
    const user = await server.account();
    assert.equal((await server.request('GET', '/api/v2/filters', { token: user.token, headers: from('192.0.2.9') })).status, 200);
    assert.equal((await verify('192.0.2.10')).status, 401);
  });

  it('throttle_authenticated_paging and throttle_unauthenticated_paging: page, min_id, max_id or since_id given, 15-minute windows', async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_PAGING: '2', TRUST_PROXY: '1' }), undefined, undefined, clock);
    const { token } = await server.account();
    const get = (query: string, ip = '192.0.2.1', withToken = true) =>
      server!.request('GET', `/api/v2/filters${query}`, { headers: from(ip), ...(withToken ? { token } : {}) });
    assert.deepEqual(shown(await get('?max_id=5')), [200, '2', '1']);
    assert.deepEqual(shown(await get('?min_id=&page=2')), [200, '2', '0']);
    // Not paging: no such parameter, or only a blank one (Rails' present?).
    assert.equal((await get('')).status, 200);
    assert.equal((await get('?since_id=%20')).status, 200);
    const refused = await get('?since_id=1');
    assert.deepEqual(shown(refused), [429, '2', '0']);
    assertResetAtWindowEnd(refused, 900, clock());
    // Without a user, by address: another address, its own budget.
    assert.deepEqual([(await get('?page=1', '192.0.2.2', false)).status, (await get('?page[]=1', '192.0.2.2', false)).status], [401, 401]);
    assert.equal((await get('?min_id=1', '192.0.2.2', false)).status, 429);
  });

  it("throttle_password_change/account: as `req.put? || (req.patch? && req.path_matches?('/auth'))`, every PUT of a signed-in user counts, 10 minutes", async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_PASSWORD_CHANGE: '2' }), undefined, undefined, clock);
    const { token } = await server.account();
    const created = await server.request('POST', '/api/v2/filters', { token, json: { title: 'a', context: ['home'] } });
    assert.equal(created.status, 200);
    const put = () => server!.request('PUT', `/api/v2/filters/${created.body.id}`, { token, json: { title: 'b' } });
    assert.deepEqual(
      [shown(await put()), shown(await put())],
      [
        [200, '2', '1'],
        [200, '2', '0'],
      ],
    );
    const refused = await put();
    assert.deepEqual(shown(refused), [429, '2', '0']);
    assertResetAtWindowEnd(refused, 600, clock());
    // A PATCH of the same filter is not a PUT; another user has its own count.
    assert.equal((await server.request('PATCH', `/api/v2/filters/${created.body.id}`, { token, json: { title: 'c' } })).status, 200);
    const other = await server.account();
    assert.equal((await server.request('PUT', '/api/v2/filters/404', { token: other.token, json: { title: 'x' } })).status, 404);
  });

  it('stops at the first throttle exceeded, as rack-attack (Configuration#throttled? is throttles.any?): the later ones do not count that request', async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_AUTHENTICATED_API: '1' }), undefined, undefined, clock);
    const { token } = await server.account();
    const register = (withToken: boolean) =>
      server!.request('POST', '/api/v1/apps', { json: { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, ...(withToken ? { token } : {}) });
    assert.deepEqual(shown(await register(true)), [200, '1', '0']);
    // Refused by throttle_authenticated_api, before throttle_oauth_application_registrations/ip is reached ...
    assert.deepEqual(shown(await register(true)), [429, '1', '0']);
    // ... so the address has spent 1 of its 5 registrations, not 2.
    assert.deepEqual(shown(await register(false)), [200, '5', '3']);
  });

  it('throttleable_remote_ip: an IPv6 client counts by its /64, an IPv4 one (also IPv4-mapped) by its address', async () => {
    server = await TestServer.start(limits({ RATE_LIMIT_UNAUTHENTICATED_API: '2', TRUST_PROXY: '1' }), undefined, undefined, clock);
    const get = (ip: string) => server!.request('GET', '/api/v2/filters', { headers: from(ip) });
    assert.deepEqual(
      [(await get('2001:db8:1:2::1')).status, (await get('2001:DB8:1:2:ffff:eeee:dddd:9')).status, (await get('2001:db8:1:2::77')).status],
      [401, 401, 429],
    );
    assert.equal((await get('2001:db8:1:3::1')).status, 401);
    assert.deepEqual([(await get('192.0.2.7')).status, (await get('::ffff:192.0.2.7')).status, (await get('192.0.2.7')).status], [401, 401, 429]);
    assert.equal((await get('192.0.2.8')).status, 401);
  });
});
