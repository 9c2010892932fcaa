import assert from 'node:assert/strict';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { newLogin } from '../support/webmail-accounts.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const LOCKED = /Too many failed login attempts\. Try again later\./;

/**
 * Issue 8 item 9: the login rate limit lives in the shared store (`webmail-sessions.sqlite` in DATA_DIR),
 * not in one process's memory. With counters per process, the second API process would log the
 * attacker in at once, and a restart would forgive.
 */
describe('Login rate limit shared by two API processes on one data directory', function () {
  this.timeout(180_000);
  const processes: NodeProcess[] = [];
  const start = (dir: string) => {
    const child = NodeProcess.start('src/main.ts', { DATA_DIR: dir, PROJECTOR: 'off' });
    processes.push(child);
    return child;
  };

  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
  });

  it('refuses on the other process after 3 wrong passwords on one, and still refuses after a restart', async () => {
    const dir = scratchDir();
    const victim = await newLogin({ dataDir: dir }, 'victim');
    const bystander = await newLogin({ dataDir: dir }, 'bystander');
    const [a, b] = [start(dir), start(dir)];
    const [urlA, urlB] = await Promise.all([a.url(), b.url()]);

    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const answer = await new WebmailClient(urlA).login(victim.username, 'wrong password');
      assert.equal(answer.status, 401, `attempt ${attempt}`);
      assert.match(answer.text, /Login failed\./);
    }
    const onB = await new WebmailClient(urlB).login(victim.username, victim.password);
    assert.equal(onB.status, 401, 'the other process refuses the right password too');
    assert.match(onB.text, LOCKED);
    assert.equal((await new WebmailClient(urlB).login(bystander.username, bystander.password)).status, 302, 'other accounts still log in');

    assert.equal(await b.kill('SIGTERM'), 0);
    const restarted = start(dir);
    const afterRestart = await new WebmailClient(await restarted.url()).login(victim.username, victim.password);
    assert.equal(afterRestart.status, 401, 'a restart forgives nothing');
    assert.match(afterRestart.text, LOCKED);
  });
});
