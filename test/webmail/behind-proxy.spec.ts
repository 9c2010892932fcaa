import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { WebmailClient, tokenIn } from '../support/webmail-client.ts';
import { TestServer } from '../support/test-server.ts';

const LOGIN = '/webmail/?_task=login&_action=login';
const FILTER = '/etc/fail2ban/filter.d/roundcube-auth.conf';

/** What a TLS-terminating reverse proxy (nginx with proxy_add_x_forwarded_for) adds to a request. */
const proxied = (forwardedFor: string) => ({ 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'https' });

async function failedLogin(server: TestServer, username: string, headers: Record<string, string>) {
  const client = new WebmailClient(server.url);
  const form = await client.get('/webmail/', headers);
  const answer = await client.post(LOGIN, { _token: tokenIn(form.text), _user: username, _pass: 'wrong' }, headers);
  assert.equal(answer.status, 401);
  return { form, answer };
}

const loginLines = (server: TestServer) =>
  readFileSync(join(server.service.stores.dataDir, 'logs', 'userlogins.log'), 'utf8')
    .trim()
    .split('\n');
const sessionCookies = (headers: Headers) => headers.getSetCookie().filter((line) => line.startsWith('roundcube_'));

describe('webmail behind a reverse proxy (TRUST_PROXY)', function () {
  this.timeout(90_000);

  async function serverWith(env: Record<string, string>) {
    const server = await TestServer.start(env);
    const username = `proxied${process.pid}`;
    const account = await server.service.stores.accounts.createAccount(username);
    await server.service.stores.accounts.setPasswordHash(account.id, await hashPassword('right'));
    return { server, username };
  }

  it('with TRUST_PROXY=on: logs the client address the proxy appended and marks the session cookies Secure', async () => {
    const { server, username } = await serverWith({ TRUST_PROXY: 'on' });
    try {
      const { form, answer } = await failedLogin(server, username, proxied('203.0.113.9'));
      // The client's own X-Forwarded-For is not believed: only the address the one trusted proxy appended.
      await failedLogin(server, username, proxied('198.51.100.7, 203.0.113.9'));
      const lines = loginLines(server);
      assert.deepEqual(
        lines.map((line) => / from (\S+) in session /.exec(line)?.[1]),
        ['203.0.113.9', '203.0.113.9'],
      );
      for (const cookie of [...sessionCookies(form.headers), ...sessionCookies(answer.headers)]) assert.match(cookie, /; secure; httponly$/, cookie);
      const client = new WebmailClient(server.url);
      const page = await client.get('/webmail/', proxied('203.0.113.9'));
      assert.equal((await client.post(LOGIN, { _token: tokenIn(page.text), _user: username, _pass: 'right' }, proxied('203.0.113.9'))).status, 302);
      assert.match(loginLines(server).at(-1)!, / from 203\.0\.113\.9 in session /);
      assert.ok(client.cookies.has('roundcube_sessauth'));

      if (spawnSync('fail2ban-regex', ['--version']).error || !existsSync(FILTER)) {
        console.log('      (fail2ban-regex part skipped: apt-get install fail2ban)');
        return;
      }
      const log = join(server.service.stores.dataDir, 'logs', 'userlogins.log');
      const run = spawnSync('fail2ban-regex', ['-o', '<ip>', log, FILTER], { encoding: 'utf8' });
      assert.deepEqual(run.stdout.trim().split('\n'), ['203.0.113.9', '203.0.113.9']);
    } finally {
      await server.close();
    }
  });

  it('by default believes no header: the proxy’s own address is logged and cookies are not Secure over plain HTTP', async () => {
    const { server, username } = await serverWith({});
    try {
      const { answer } = await failedLogin(server, username, proxied('203.0.113.9'));
      assert.match(loginLines(server).at(-1)!, / from 127\.0\.0\.1 in session /);
      for (const cookie of sessionCookies(answer.headers)) assert.doesNotMatch(cookie, /secure/, cookie);
    } finally {
      await server.close();
    }
  });

  it('takes on, off or a number of proxies, and refuses anything else', () => {
    assert.deepEqual(
      ['', 'off', 'on', '2'].map((value) => loadConfig({ TRUST_PROXY: value }).trustProxy),
      [0, 0, 1, 2],
    );
    for (const value of ['maybe', '-1', '10']) assert.throws(() => loadConfig({ TRUST_PROXY: value }), /TRUST_PROXY must be on, off or the number of proxies/);
  });
});
