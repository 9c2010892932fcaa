import assert from 'node:assert/strict';
import {
  accountWithPassword,
  approve,
  CALLBACK,
  clientCredentials,
  codeOf,
  exchangeCode,
  pkcePair,
  registerApp,
  type RegisteredApp,
} from '../support/oauth-flow.ts';
import { TestServer } from '../support/test-server.ts';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

describe('OAuth: what Mastodon (Doorkeeper) refuses', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());

  const query = (app: RegisteredApp, extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: CALLBACK,
    scope: 'read write',
    ...extra,
  });
  const exchange = (app: RegisteredApp, code: string, extra: Record<string, string> = {}) => exchangeCode(server, app, code, extra);

  it('takes a code once: the second exchange is invalid_grant', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const code = codeOf(await approve(server, query(app, { state: 'xyz' }), user));
    const first = await exchange(app, code);
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
    const second = await exchange(app, code);
    assert.equal(second.status, 400);
    assert.deepEqual(second.body, INVALID_GRANT);
  });

  it('sends state back with the code', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const answer = await approve(server, query(app, { state: 'a b&c' }), user);
    assert.equal(new URL(answer.headers.get('location')!).searchParams.get('state'), 'a b&c');
  });

  it('checks the PKCE verifier: a wrong one is invalid_grant, none is invalid_request; the right one gets the token', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const { verifier, challenge } = pkcePair();
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const wrong = await exchange(app, codeOf(await approve(server, query(app, pkce), user)), { code_verifier: pkcePair().verifier });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const missing = await exchange(app, codeOf(await approve(server, query(app, pkce), user)));
    assert.deepEqual([missing.status, missing.body.error], [400, 'invalid_request']);
    const right = await exchange(app, codeOf(await approve(server, query(app, pkce), user)), { code_verifier: verifier });
    assert.equal(right.status, 200);
  });

  it('refuses a PKCE method other than S256 at the app', async () => {
    const app = await registerApp(server);
    const answer = await fetch(
      `${server.url}/oauth/authorize?${new URLSearchParams(query(app, { code_challenge: pkcePair().challenge, code_challenge_method: 'plain' }))}`,
      {
        redirect: 'manual',
      },
    );
    assert.equal(answer.status, 302);
    assert.equal(new URL(answer.headers.get('location')!).searchParams.get('error'), 'invalid_code_challenge_method');
  });

  it('shows an error page, sending nothing anywhere, for a redirect URI the app did not register or an unknown client', async () => {
    const app = await registerApp(server);
    for (const params of [query(app, { redirect_uri: 'https://evil.example/callback' }), query(app, { client_id: 'nobody' })]) {
      const answer = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.get('location'), null);
      assert.match(await answer.text(), /An error has occurred/);
    }
  });

  it('refuses a code exchanged with another redirect URI than it was given for (invalid_grant)', async () => {
    const [app, user] = [await registerApp(server, 'read write', `${CALLBACK} https://app.example/other`), await accountWithPassword(server)];
    const code = codeOf(await approve(server, query(app), user));
    const answer = await exchange(app, code, { redirect_uri: 'https://app.example/other' });
    assert.deepEqual([answer.status, answer.body], [400, INVALID_GRANT]);
  });

  it("refuses a scope beyond the app's: invalid_scope sent back to the app, for the page and for client_credentials", async () => {
    const [app, user] = [await registerApp(server, 'read'), await accountWithPassword(server)];
    const page = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query(app, { scope: 'read write' }))}`, { redirect: 'manual' });
    assert.equal(page.status, 302);
    assert.equal(new URL(page.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
    const forged = await approve(server, query(app, { scope: 'read' }), user);
    assert.equal(forged.status, 302);
    const credentials = await clientCredentials(server, app, 'write');
    assert.deepEqual([credentials.status, credentials.body.error], [400, 'invalid_scope']);
  });

  it('refuses a wrong client secret (401 invalid_client) and an unknown grant type (unsupported_grant_type)', async () => {
    const app = await registerApp(server);
    const wrong = await server.request('POST', '/oauth/token', {
      form: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: 'x'.repeat(43) }).toString(),
    });
    assert.deepEqual([wrong.status, wrong.body.error], [401, 'invalid_client']);
    const password = await server.request('POST', '/oauth/token', {
      json: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'a', password: 'b' },
    });
    assert.deepEqual([password.status, password.body.error], [400, 'unsupported_grant_type']);
  });

  it('refuses a token once revoked through /oauth/revoke, and lets no other app revoke it', async () => {
    const [app, other, user] = [await registerApp(server), await registerApp(server), await accountWithPassword(server)];
    const token = (await exchange(app, codeOf(await approve(server, query(app), user)))).body.access_token as string;
    assert.equal((await server.request('GET', '/api/v1/filters', { token })).status, 200);
    const byOther = await server.request('POST', '/oauth/revoke', { json: { client_id: other.client_id, client_secret: other.client_secret, token } });
    assert.equal(byOther.status, 403);
    assert.equal((await server.request('GET', '/api/v1/filters', { token })).status, 200);
    const revoked = await server.request('POST', '/oauth/revoke', { json: { client_id: app.client_id, client_secret: app.client_secret, token } });
    assert.deepEqual([revoked.status, revoked.body], [200, {}]);
    const after = await server.request('GET', '/api/v1/filters', { token });
    assert.deepEqual([after.status, after.body], [401, { error: 'The access token was revoked' }]);
  });

  it('sends access_denied back with state when the user denies', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const answer = await approve(server, query(app, { state: 's1' }), user, 'deny');
    const location = new URL(answer.headers.get('location')!);
    assert.deepEqual([location.searchParams.get('error'), location.searchParams.get('state')], ['access_denied', 's1']);
  });

  it('refuses a wrong password on the page (401, no code) and a form without its CSRF cookie (422)', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const wrong = await approve(server, query(app), { username: user.username, password: 'not it' });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /Invalid username or password/);
    const forged = await fetch(`${server.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ...query(app),
        authenticity_token: 'a'.repeat(43),
        username: user.username,
        password: user.password,
        decision: 'approve',
      }).toString(),
    });
    assert.equal(forged.status, 422);
    assert.equal(forged.headers.get('location'), null);
  });

  it('shows the code on the page for urn:ietf:wg:oauth:2.0:oob, and the code works', async () => {
    const oob = 'urn:ietf:wg:oauth:2.0:oob';
    const [app, user] = [await registerApp(server, 'read', oob), await accountWithPassword(server)];
    const answer = await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: oob, scope: 'read' }, user);
    assert.equal(answer.status, 200);
    const code = /<code>([^<]+)<\/code>/.exec(await answer.text())![1]!;
    const token = await exchangeCode(server, app, code, { redirect_uri: oob });
    assert.deepEqual([token.status, token.body.scope], [200, 'read']);
  });
});
