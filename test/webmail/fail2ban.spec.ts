import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WebmailClient } from '../support/webmail-client.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const FILTER = '/etc/fail2ban/filter.d/roundcube-auth.conf';
const FAIL2BAN_REGEX = process.env.FAIL2BAN_REGEX ?? 'fail2ban-regex';

function fail2banRegex(log: string, output?: string): { status: number | null; stdout: string } {
  const args = [...(output ? ['-o', output] : []), log, FILTER];
  const run = spawnSync(FAIL2BAN_REGEX, args, { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout + run.stderr };
}

describe('fail2ban roundcube-auth over userlogins.log', function () {
  this.timeout(90_000);
  let server: WebmailServer;

  before(async function () {
    const missing = spawnSync(FAIL2BAN_REGEX, ['--version']).error
      ? `${FAIL2BAN_REGEX} is not installed (apt-get install fail2ban)`
      : !existsSync(FILTER)
        ? `no ${FILTER}`
        : '';
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    server = await startWebmailServer();
  });
  after(async () => {
    await server?.close();
  });

  it('matches every failed login, with the client address, and no successful one', async () => {
    const victim = await server.account('victim');
    const other = await server.account('other');
    const attempts: [string, string][] = [
      [victim.username, 'guess1'],
      [victim.username, 'guess2'],
      [victim.username, 'guess3'],
      [victim.username, victim.password], // refused by the rate limit (error 4)
      ['no-such-user', 'x'],
      [`evil from 10.9.8.7 in session abc (error: 0)`, 'x'], // a username trying to frame another address
    ];
    for (const [user, password] of attempts) {
      assert.equal((await new WebmailClient(server.baseUrl).login(user, password)).status, 401);
    }
    const forged = new WebmailClient(server.baseUrl);
    await forged.loginToken();
    assert.equal((await forged.post('/webmail/?_task=login&_action=login', { _token: 'bad', _user: other.username, _pass: other.password })).status, 401);
    assert.equal((await new WebmailClient(server.baseUrl).login(other.username, other.password)).status, 302);

    const log = join(server.logDir, 'userlogins.log');
    assert.equal(server.loginLines().length, 8);
    const summary = fail2banRegex(log);
    assert.equal(summary.status, 0, summary.stdout);
    assert.match(summary.stdout, /^Lines: 8 lines, 0 ignored, 7 matched, 1 missed$/m);
    assert.match(summary.stdout, /\|- Missed line\(s\):\n\|\s+\[[^\]]+\]: <\w{8}> Successful login for other/);
    const addresses = fail2banRegex(log, '<ip>').stdout.trim().split('\n');
    assert.deepEqual(addresses, Array(7).fill('127.0.0.1'));
  });
});
