import assert from 'node:assert/strict';
import { canonicalPath } from '../../src/http/route-of.ts';
import { pinnedClock } from '../support/pinned-clock.ts';
import { TestServer, type ApiResponse } from '../support/test-server.ts';

const limits = (fields: Record<string, string>) => ({ RATE_LIMITS: 'on', ...fields });
const hex = (char: string) => `%${char.charCodeAt(0).toString(16)}`;

/**
 * Every way of writing one path that the router (letter case, a trailing slash) or a canonical form
 * (squeezed slashes, percent-encoded letters) takes for it.
 */
function spellings(path: string): string[] {
  const [first = '', ...rest] = path.split('/').slice(1);
  const tail = rest.join('/');
  const capitalised = path.replace(/\/([a-z])/g, (_, letter: string) => `/${letter.toUpperCase()}`);
  return [
    path,
    path.toUpperCase(),
    capitalised,
    `${path}/`,
    `${capitalised}/`,
    `${path.toUpperCase()}/`,
    `/${path}`,
    `/${first}//${tail}`,
    `${path}//`,
    `/${hex(first[0]!)}${first.slice(1)}/${tail}`,
    `/${first}/${tail.replace(/[a-z]/, (letter) => hex(letter).toUpperCase())}`,
    `//${path.toUpperCase()}/`,
  ];
}

describe('every spelling of a limited route counts once, as the route the router runs', function () {
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

  /** Sends every spelling once: none refused, the last allowed one spent, the next (canonical) one refused. */
  async function countsOncePerSpelling(send: (path: string) => Promise<ApiResponse>, path: string, headers: boolean) {
    const all = spellings(path);
    const answers = [];
    for (const spelling of all) answers.push(await send(spelling));
    assert.deepEqual(
      answers.map((a, i) => [all[i], a.status === 429 ? 429 : 'passed', headers ? a.headers.get('x-ratelimit-remaining') : null]),
      all.map((spelling, i) => [spelling, 'passed', headers ? String(all.length - 1 - i) : null]),
    );
    const refused = await send(path);
    assert.deepEqual([refused.status, refused.headers.get('x-ratelimit-limit'), refused.body], [429, String(all.length), { error: 'Too many requests' }]);
  }

  it('spells every path the same way: letter case kept (the router ignores it), slashes squeezed, unreserved escapes decoded', () => {
    assert.deepEqual(['/api/v1/apps', '//api//v1/apps/', '/%61pi/v1/%41pps', '/API/v1/apps%2f', '/', '', '/api/%7e%2F'].map(canonicalPath), [
      '/api/v1/apps',
      '/api/v1/apps',
      '/api/v1/Apps',
      '/API/v1/apps%2F',
      '/',
      '/',
      '/api/~%2F',
    ]);
  });

  it('POST /api/v1/apps: throttle_oauth_application_registrations/ip, whose headers it shows', async () => {
    const n = spellings('/api/v1/apps').length;
    server = await TestServer.start(limits({ RATE_LIMIT_APP_REGISTRATIONS: String(n) }), undefined, undefined, clock);
    const register = (path: string) => server!.request('POST', path, { json: { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } });
    await countsOncePerSpelling(register, '/api/v1/apps', true);
  });

  it("POST /oauth/authorize and POST /oauth/token: this service's own sign-in throttle, one budget per address", async () => {
    const n = spellings('/oauth/token').length + spellings('/oauth/authorize').length;
    server = await TestServer.start(limits({ RATE_LIMIT_OAUTH_SIGN_IN: String(n) }), undefined, undefined, clock);
    const post = (path: string) => server!.request('POST', path, { form: 'grant_type=client_credentials&client_id=a&client_secret=b' });
    const answers = [];
    for (const path of [...spellings('/oauth/token'), ...spellings('/oauth/authorize')]) answers.push((await post(path)).status);
    assert.ok(!answers.includes(429), `refused before the limit: ${answers.join(' ')}`);
    // A GET of the consent page checks no password and is not counted.
    assert.notEqual((await server.request('GET', '/OAuth/Authorize/')).status, 429);
    assert.equal((await post('/oauth/authorize')).status, 429);
    assert.equal((await post('/oauth/token')).status, 429);
  });

  it('GET /api/v2/filters with a user token: throttle_authenticated_api', async () => {
    const n = spellings('/api/v2/filters').length;
    server = await TestServer.start(limits({ RATE_LIMIT_AUTHENTICATED_API: String(n) }), undefined, undefined, clock);
    const { token } = await server.account();
    await countsOncePerSpelling((path) => server!.request('GET', path, { token }), '/api/v2/filters', true);
  });

  it("POST /api/v2/filters/match: this service's own matching throttle", async () => {
    const n = spellings('/api/v2/filters/match').length;
    server = await TestServer.start(limits({ RATE_LIMIT_FILTER_MATCH: String(n) }), undefined, undefined, clock);
    const { token } = await server.account();
    const match = (path: string) => server!.request('POST', path, { token, json: { statuses: [{ id: '1', content: 'x' }] } });
    await countsOncePerSpelling(match, '/api/v2/filters/match', true);
  });

  it('PUT /api/v2/filters/:id: throttle_password_change/account (Mastodon counts every PUT of a signed-in user)', async () => {
    const n = spellings('/api/v2/filters/123').length;
    server = await TestServer.start(limits({ RATE_LIMIT_PASSWORD_CHANGE: String(n) }), undefined, undefined, clock);
    const { token } = await server.account();
    await countsOncePerSpelling((path) => server!.request('PUT', path, { token, json: { title: 't' } }), '/api/v2/filters/123', true);
  });

  it('paths no route takes still count in the API throttles when they are under /api (api_request?), and only then', async () => {
    const unrouted = ['/api/v9/nothing', '/API/nothing/', '//api/nothing', '/%61pi/nothing', '/apix', '/api%2Fv2/filters'];
    server = await TestServer.start(limits({ RATE_LIMIT_UNAUTHENTICATED_API: String(unrouted.length) }), undefined, undefined, clock);
    const answers = [];
    for (const path of unrouted) answers.push(await server.request('GET', path));
    assert.deepEqual(
      answers.map((a) => [a.status, a.headers.get('x-ratelimit-remaining')]),
      unrouted.map((_, i) => [404, String(unrouted.length - 1 - i)]),
    );
    for (const path of ['/nothing', '/webmail/nothing', '/health/live']) assert.notEqual((await server.request('GET', path)).status, 429);
    assert.equal((await server.request('GET', '/api/v2/filters')).status, 429);
  });
});
