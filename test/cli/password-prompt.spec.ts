import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { storedPasswordHash } from '../support/stored-password-hash.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCRIPT = '/usr/bin/script';

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`), typing each answer once its prompt shows, as
 * a person at the keyboard would. Returns everything the terminal displayed.
 */
function onTerminal(args: string[], dataDir: string, answers: [prompt: string, typed: string][]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn(SCRIPT, ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let answered = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    const next = answers[answered];
    // Each prompt is answered once, after it has been displayed (the answer is typed after it).
    if (next && screen.split(next[0]).length - 1 > answers.slice(0, answered).filter(([p]) => p === next[0]).length) {
      answered += 1;
      child.stdin.write(next[1]);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

describe('CLI passwords typed on a terminal', function () {
  this.timeout(60_000);

  before(function () {
    if (spawnSync(SCRIPT, ['--version']).error) {
      console.log(`      skipped: no ${SCRIPT} to make a pseudo-terminal (apt-get install bsdutils)`);
      this.skip();
    }
  });

  it('asks twice without echo and takes the password at Enter (account create --password)', async () => {
    const dir = scratchDir();
    const typed = 'correct horse battery';
    const run = await onTerminal(['account', 'create', 'tty_user', '--password'], dir, [
      ['password: ', `${typed}\r`],
      ['password again: ', `${typed}\r`],
    ]);
    assert.equal(run.code, 0, run.screen);
    assert.match(run.screen, /^password: \r?\npassword again: \r?\n[0-9]+\r?\n$/);
    assert.doesNotMatch(run.screen, /horse/);
    assert.equal(await verifyPassword(typed, (await storedPasswordHash(dir, 'tty_user'))!), true);
  });

  it('asks on a terminal for `account password`, and refuses answers that differ or a Ctrl-D', async () => {
    const dir = scratchDir();
    spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'account', 'create', 'tty_other'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
    });
    const set = await onTerminal(['account', 'password', 'tty_other'], dir, [
      ['password: ', 'first one\r'],
      ['password again: ', 'first one\r'],
    ]);
    assert.equal(set.code, 0, set.screen);
    assert.doesNotMatch(set.screen, /first one/);
    assert.equal(await verifyPassword('first one', (await storedPasswordHash(dir, 'tty_other'))!), true);

    const differ = await onTerminal(['account', 'password', 'tty_other'], dir, [
      ['password: ', 'second one\r'],
      ['password again: ', 'second oen\r'],
    ]);
    assert.equal(differ.code, 1);
    assert.match(differ.screen, /error: the passwords differ; nothing was changed/);
    const ended = await onTerminal(['account', 'password', 'tty_other'], dir, [['password: ', '\u0004']]);
    assert.equal(ended.code, 1);
    assert.match(ended.screen, /error: no password given/);
    assert.equal(await verifyPassword('first one', (await storedPasswordHash(dir, 'tty_other'))!), true);
  });
});
