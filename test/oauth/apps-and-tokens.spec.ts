import assert from 'node:assert/strict';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { accountWithPassword, approve, CALLBACK, clientCredentials as clientCredentialsOf, codeOf, exchangeCode, registerApp } from '../support/oauth-flow.ts';
import { TestServer } from '../support/test-server.ts';
import { splitToken } from '../../src/accounts/token-secret.ts';

describe('OAuth apps and tokens as Mastodon serves them', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());

  const clientCredentials = (app: { client_id: string; client_secret: string }, scope?: string) => clientCredentialsOf(server, app, scope);

  it("answers POST /api/v1/apps with Mastodon's Application and its credentials, 'read' by default", async () => {
    const answer = await server.request('POST', '/api/v1/apps', {
      form: `client_name=Tusky&redirect_uris=${encodeURIComponent(CALLBACK)}&website=https%3A%2F%2Ftusky.app`,
    });
    assert.equal(answer.status, 200);
    const { id, client_id, client_secret, ...rest } = answer.body;
    assert.match(id, /^[0-9]+$/);
    assert.match(client_id, /^[A-Za-z0-9_-]{43}$/);
    assert.match(client_secret, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(rest, {
      name: 'Tusky',
      website: 'https://tusky.app',
      scopes: ['read'],
      redirect_uri: CALLBACK,
      redirect_uris: [CALLBACK],
      client_secret_expires_at: 0,
    });
  });

  it("refuses an app as Mastodon's validations do (422)", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: CALLBACK }, "Validation failed: Application name can't be blank"],
      [{ client_name: 'x' }, "Validation failed: Redirect URI can't be blank"],
      [{ client_name: 'x', redirect_uris: 'not-a-uri' }, 'Validation failed: Redirect URI must be an absolute URI.'],
      [{ client_name: 'x', redirect_uris: CALLBACK, scopes: 'read everything' }, "Validation failed: Scopes doesn't match configured on the server."],
      [{ client_name: 'x'.repeat(61), redirect_uris: CALLBACK }, 'Validation failed: Application name is too long (maximum is 60 characters)'],
    ];
    for (const [json, error] of cases) {
      const answer = await server.request('POST', '/api/v1/apps', { json });
      assert.deepEqual([answer.status, answer.body], [422, { error }]);
    }
  });

  it('takes the token from the access_token query or form parameter, as Doorkeeper does', async () => {
    const { token } = await server.account();
    const inQuery = await server.request('GET', `/api/v2/filters?access_token=${encodeURIComponent(token)}`);
    assert.equal(inQuery.status, 200);
    const inForm = await server.request('POST', '/api/v2/filters', { form: `access_token=${encodeURIComponent(token)}&title=t&context[]=home` });
    assert.equal(inForm.status, 200);
    const wrong = await server.request('GET', '/api/v2/filters?access_token=1_aaaaaaaaaaaaaaaaaaaaaaaaaa');
    assert.equal(wrong.status, 401);
  });

  it('gives an app-only token (client_credentials): verify_credentials answers, the filters API says it needs a user (422), a missing scope first 403', async () => {
    const app = await registerApp(server, 'read write');
    const token = (await clientCredentials(app)).body.access_token as string;
    const verified = await server.request('GET', '/api/v1/apps/verify_credentials', { token });
    assert.deepEqual([verified.status, verified.body.name, verified.body.scopes], [200, 'Test app', ['read', 'write']]);
    const filters = await server.request('GET', '/api/v2/filters', { token });
    assert.deepEqual([filters.status, filters.body], [422, { error: 'This method requires an authenticated user' }]);
    const create = await server.request('POST', '/api/v2/filters', { token, json: { title: 't', context: ['home'] } });
    assert.equal(create.status, 403);
  });

  it('signs in through masto.js: its OAuth client takes the code, its REST client verifies the app and creates a filter', async () => {
    const oauth = createOAuthAPIClient({ url: server.url });
    const rest = createRestAPIClient({ url: server.url });
    const app = await rest.v1.apps.create({ clientName: 'masto app', redirectUris: CALLBACK, scopes: 'read:filters write:filters' });
    const user = await accountWithPassword(server);
    const query = { response_type: 'code', client_id: app.clientId!, redirect_uri: CALLBACK, scope: 'read:filters write:filters' };
    const code = codeOf(await approve(server, query, user));
    const token = await oauth.token.create({
      grantType: 'authorization_code',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: CALLBACK,
      code,
    });
    assert.equal(token.scope, 'read:filters write:filters');
    const signedIn = createRestAPIClient({ url: server.url, accessToken: token.accessToken });
    assert.equal((await signedIn.v1.apps.verifyCredentials()).name, 'masto app');
    const filter = await signedIn.v2.filters.create({ title: 'by masto', context: ['home'] });
    assert.equal(filter.title, 'by masto');
  });

  it('serves the server metadata Mastodon 4.3 serves', async () => {
    const answer = await server.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.token_endpoint, `${server.url}/oauth/token`);
    assert.equal(answer.body.app_registration_endpoint, `${server.url}/api/v1/apps`);
    assert.deepEqual(answer.body.code_challenge_methods_supported, ['S256']);
    assert.ok(answer.body.scopes_supported.includes('read:filters'));
  });

  it('keeps no token, code or client secret in plain text in its files', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const code = codeOf(await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read' }, user));
    const token = await exchangeCode(server, app, code);
    const appToken = (await clientCredentials(app)).body.access_token as string;
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const dir = server.service.stores.dataDir;
    const files = readdirSync(dir)
      .filter((f) => statSync(`${dir}/${f}`).isFile())
      .map((f) => readFileSync(`${dir}/${f}`).toString('latin1'));
    // The secret is all after the id: its alphabet has `_` too, so a split on `_` could leave one character.
    const secretOf = (token: string) => splitToken(token)!.secret;
    for (const secret of [app.client_secret, code, secretOf(token.body.access_token as string), secretOf(appToken)]) {
      assert.ok(!files.some((text) => text.includes(secret)), 'a secret is stored in plain text');
    }
  });
});
