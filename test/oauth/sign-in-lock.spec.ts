import assert from 'node:assert/strict';
import { accountWithPassword, approve, CALLBACK, registerApp } from '../support/oauth-flow.ts';
import { runCli } from '../support/run-cli.ts';
import { TestServer } from '../support/test-server.ts';

describe('OAuth sign-in shares the webmail login lock, which `cli account unlock` lifts', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ WEBMAIL_LOGIN_RATE_LIMIT: '2' });
  });
  after(() => server.close());

  it('refuses even the right password once locked, and signs in again after unlock', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const query = { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read' };
    for (let i = 0; i < 2; i += 1) assert.equal((await approve(server, query, { username: user.username, password: 'wrong password' })).status, 401);
    const locked = await approve(server, query, user);
    assert.equal(locked.status, 401);
    assert.match(await locked.text(), /Too many failed sign-ins/);
    const unlocked = await runCli(['account', 'unlock', user.username], { DATA_DIR: server.service.stores.dataDir });
    assert.equal(unlocked.code, 0, unlocked.stderr);
    assert.equal((await approve(server, query, user)).status, 302);
  });
});
