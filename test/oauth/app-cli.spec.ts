import assert from 'node:assert/strict';
import { accountWithPassword, authorizationCodeToken, clientCredentials, clientCredentialsToken, registerApp } from '../support/oauth-flow.ts';
import { runCli } from '../support/run-cli.ts';
import { TestServer } from '../support/test-server.ts';

const ndjson = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('CLI: app list, app revoke, and the app in token list', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());

  it('lists apps without secrets, shows which app a token is for, and revoking an app ends its tokens and its sign-ins', async () => {
    const cli = (...args: string[]) => runCli(args, { DATA_DIR: server.service.stores.dataDir });
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const token = await authorizationCodeToken(server, app, user);
    const appToken = await clientCredentialsToken(server, app);

    const listed = await cli('app', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(app.client_secret));
    const line = ndjson(listed.stdout).find((a) => a.clientId === app.client_id)!;
    assert.deepEqual([line.id, line.name, line.scopes, line.revokedAt], [app.id, 'Test app', ['read', 'write'], null]);
    const tokens = ndjson((await cli('token', 'list', user.username)).stdout);
    assert.deepEqual(
      tokens.map((t) => t.app),
      [null, 'Test app'],
    );

    const revoked = await cli('app', 'revoke', '--', app.client_id);
    assert.deepEqual([revoked.code, revoked.stderr], [0, 'revoked, with 1 account token(s)\n']);
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 401);
    assert.equal((await server.request('GET', '/api/v1/apps/verify_credentials', { token: appToken })).status, 401);
    const again = await clientCredentials(server, app);
    assert.deepEqual([again.status, again.body.error], [401, 'invalid_client']);
    assert.deepEqual((await cli('app', 'revoke', '--', app.id)).stderr, `error: no active app ${app.id}\n`);
  });
});
