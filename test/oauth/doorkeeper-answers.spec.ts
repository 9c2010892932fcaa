import assert from 'node:assert/strict';
import { accountWithPassword, approve, codeOf, pkcePair, registerApp, type RegisteredApp } from '../support/oauth-flow.ts';
import { TestServer } from '../support/test-server.ts';

// Sources: doorkeeper v5.8.2 (Mastodon 4.x's Doorkeeper 5.x) and mastodon/mastodon as stored (commit 03b1338
// for config/initializers/doorkeeper.rb).
const DK = 'doorkeeper v5.8.2';
const FORBIDDEN = 'Validation failed: Redirect URI is forbidden by the server., Redirect URI must specify a scheme.';

describe('OAuth answers as Doorkeeper 5.x in Mastodon 4.x', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());

  const register = (redirect_uris: unknown) =>
    server.request('POST', '/api/v1/apps', { json: { client_name: 'Doorkeeper test', redirect_uris, scopes: 'read write' } });
  const exchange = (app: RegisteredApp, fields: Record<string, string>) =>
    server.request('POST', '/oauth/token', {
      form: new URLSearchParams({ grant_type: 'authorization_code', client_id: app.client_id, client_secret: app.client_secret, ...fields }).toString(),
    });

  const refusals: [string, unknown, string][] = [
    [`data: (mastodon doorkeeper.rb:153 forbid_redirect_uri; ${DK} redirect_uri_validator.rb:19,21)`, 'data:text/html;base64,PHNjcmlwdD4=', FORBIDDEN],
    [`vbscript: (mastodon doorkeeper.rb:153; ${DK} redirect_uri_validator.rb:19,21)`, 'VBScript:msgbox(1)', FORBIDDEN],
    [`an opaque urn:foo:bar (${DK} redirect_uri_validator.rb:21,41-42)`, 'urn:foo:bar', 'Validation failed: Redirect URI must specify a scheme.'],
    [`localhost:3000, scheme "localhost" (${DK} redirect_uri_validator.rb:21,44)`, 'localhost:3000', 'Validation failed: Redirect URI must specify a scheme.'],
    [
      `a list element smuggling javascript: after a newline (${DK} models/application_mixin.rb:67-68, redirect_uri_validator.rb:15)`,
      ['https://app.example/cb\njavascript:alert(1)'],
      FORBIDDEN,
    ],
    [
      `a leading control character before javascript: (${DK} redirect_uri_validator.rb:27-28, Ruby URI.parse raises)`,
      '\u0001javascript:alert(1)',
      'Validation failed: Redirect URI must be a valid URI.',
    ],
    [`a leading tab before javascript: (${DK} redirect_uri_validator.rb:15 splits on whitespace, then :19)`, '\tjavascript:alert(1)', FORBIDDEN],
    [
      `a list longer than 2,000 characters joined (mastodon app/models/oauth/application.rb APP_REDIRECT_URI_LIMIT)`,
      Array.from({ length: 80 }, (_, i) => `https://app.example/callback/${i}`),
      'Validation failed: Redirect URI is too long (maximum is 2000 characters)',
    ],
  ];
  for (const [what, uris, message] of refusals) {
    it(`refuses ${what}`, async () => {
      const answer = await register(uris);
      assert.deepEqual([answer.status, answer.body], [422, { error: message }]);
    });
  }

  it(`registers urn:ietf:wg:oauth:2.0:oob (${DK} redirect_uri_validator.rb:16), two URIs an element's newline separates, and 25 URIs (Mastodon counts none)`, async () => {
    const oob = await register('urn:ietf:wg:oauth:2.0:oob');
    assert.equal(oob.status, 200);
    const two = await register(['https://a.example/cb\nhttps://b.example/cb']);
    assert.deepEqual(two.body.redirect_uris, ['https://a.example/cb', 'https://b.example/cb']);
    const many = Array.from({ length: 25 }, (_, i) => `https://app.example/${i}`);
    assert.deepEqual((await register(many)).body.redirect_uris, many);
  });

  it(`matches a loopback redirect registered without a port on any port, names excepted (RFC 8252 7.3; ${DK} uri_checker.rb:30-35,41-45, authorization_code_request.rb:85-90)`, async () => {
    const app = await registerApp(server, 'read', 'http://127.0.0.1/callback http://localhost/callback');
    const user = await accountWithPassword(server);
    const query = (redirect_uri: string) => ({ response_type: 'code', client_id: app.client_id, redirect_uri, scope: 'read' });
    const answer = await approve(server, query('http://127.0.0.1:43123/callback'), user);
    assert.equal(answer.status, 302);
    assert.match(answer.headers.get('location')!, /^http:\/\/127\.0\.0\.1:43123\/callback\?code=/);
    // The exchange too (authorization_code_request.rb:85-90): the app may listen on a new port by then.
    const token = await exchange(app, { code: codeOf(answer), redirect_uri: 'http://127.0.0.1:50000/callback' });
    assert.equal(token.status, 200);
    const again = codeOf(await approve(server, query('http://127.0.0.1:43123/callback'), user));
    const elsewhere = await exchange(app, { code: again, redirect_uri: 'http://127.0.0.1:43123/other' });
    assert.deepEqual([elsewhere.status, elsewhere.body.error], [400, 'invalid_grant']);
    for (const other of ['http://127.0.0.1:43123/elsewhere', 'http://localhost:43123/callback', 'http://127.0.0.2:43123/callback']) {
      const page = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query(other))}`);
      assert.equal(page.status, 400, other);
      assert.match(await page.text(), /The requested redirect uri is malformed or doesn&#39;t match client redirect URI\./);
    }
  });

  it(`answers a code exchange without redirect_uri, or a PKCE code without code_verifier, invalid_request, the code kept (${DK} authorization_code_request.rb:6,62-73; invalid_request_response.rb:29-36; en.yml:97)`, async () => {
    const app = await registerApp(server);
    const user = await accountWithPassword(server);
    const { verifier, challenge } = pkcePair();
    const query = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'https://app.example/callback',
      scope: 'read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const code = codeOf(await approve(server, query, user));
    const noVerifier = await exchange(app, { code, redirect_uri: query.redirect_uri });
    assert.deepEqual(
      [noVerifier.status, noVerifier.body],
      [400, { error: 'invalid_request', error_description: 'Missing required parameter: code_verifier.' }],
    );
    const noRedirect = await exchange(app, { code, code_verifier: verifier });
    assert.deepEqual([noRedirect.status, noRedirect.body], [400, { error: 'invalid_request', error_description: 'Missing required parameter: redirect_uri.' }]);
    assert.equal((await exchange(app, { code, code_verifier: verifier, redirect_uri: query.redirect_uri })).status, 200);
  });

  it(`refuses a revoked token with "The access token was revoked", a tampered one "is invalid" (mastodon spec/requests/api/v1/apps/credentials_spec.rb; ${DK} invalid_token_response.rb:9-10, en.yml:126)`, async () => {
    const app = await registerApp(server);
    const user = await accountWithPassword(server);
    const code = codeOf(
      await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: 'https://app.example/callback', scope: 'read' }, user),
    );
    const token = (await exchange(app, { code, redirect_uri: 'https://app.example/callback' })).body.access_token as string;
    const revoke = await server.request('POST', '/oauth/revoke', { json: { client_id: app.client_id, client_secret: app.client_secret, token } });
    assert.equal(revoke.status, 200);
    for (const path of ['/api/v1/apps/verify_credentials', '/api/v2/filters']) {
      const revoked = await server.request('GET', path, { token });
      assert.deepEqual([revoked.status, revoked.body], [401, { error: 'The access token was revoked' }], path);
    }
    const tampered = await server.request('GET', '/api/v2/filters', { token: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` });
    assert.deepEqual([tampered.status, tampered.body], [401, { error: 'The access token is invalid' }]);
  });

  it(`answers /oauth/revoke without client credentials, or with a wrong secret, 403 unauthorized_client (${DK} app/controllers/doorkeeper/tokens_controller.rb:5,50-77,176-180; en.yml:130)`, async () => {
    const app = await registerApp(server);
    const { token } = await server.account();
    const expected = [403, { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' }];
    const none = await server.request('POST', '/oauth/revoke', { json: { token } });
    assert.deepEqual([none.status, none.body], expected);
    const wrong = await server.request('POST', '/oauth/revoke', { json: { client_id: app.client_id, client_secret: 'wrong', token } });
    assert.deepEqual([wrong.status, wrong.body], expected);
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 200);
  });

  it(`takes the token from ?bearer_token= as Doorkeeper's default access_token_methods (${DK} lib/doorkeeper/oauth/token.rb:29-31; mastodon doorkeeper.rb:129-133)`, async () => {
    const { token } = await server.account();
    const answer = await fetch(`${server.url}/api/v2/filters?bearer_token=${encodeURIComponent(token)}`);
    assert.equal(answer.status, 200);
    const body = JSON.stringify({ bearer_token: token, title: 'by body', context: ['home'] });
    const inBody = await fetch(`${server.url}/api/v2/filters`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(inBody.status, 200, await inBody.clone().text());
  });
});
