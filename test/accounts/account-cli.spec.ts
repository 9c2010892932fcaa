import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

function cli(dataDir: string, args: string[], input = '') {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: dataDir },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function storedHash(dataDir: string, username: string): Promise<string | null> {
  const store = SqliteAccountStore.inDataDir(dataDir);
  try {
    const account = await store.findAccount(username);
    return account ? store.passwordHash(account.id) : null;
  } finally {
    await store.close();
  }
}

describe('account CLI passwords', function () {
  this.timeout(30000);

  it('creates an account with a password read from stdin and prints only the id', async () => {
    const dir = scratchDir();
    const run = cli(dir, ['account', 'create', 'webuser', '--password-stdin'], 'pass word\n');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^[0-9]+\n$/);
    const hash = await storedHash(dir, 'webuser');
    assert.ok(hash?.startsWith('scrypt$'));
    assert.equal(await verifyPassword('pass word', hash!), true);
    assert.equal(hash!.includes('pass word'), false);
  });

  it('sets a new password on an existing account by name or id', async () => {
    const dir = scratchDir();
    const id = cli(dir, ['account', 'create', 'later']).stdout.trim();
    assert.equal(await storedHash(dir, 'later'), null);
    assert.equal(cli(dir, ['account', 'password', 'later', '--password-stdin'], 'first\r\n').status, 0);
    assert.equal(await verifyPassword('first', (await storedHash(dir, 'later'))!), true);
    assert.equal(cli(dir, ['account', 'password', id, '--password-stdin'], 'second').status, 0);
    assert.equal(await verifyPassword('second', (await storedHash(dir, 'later'))!), true);
  });

  it('refuses an empty password without creating the account, and an unknown account', async () => {
    const dir = scratchDir();
    const empty = cli(dir, ['account', 'create', 'nopass', '--password-stdin'], '\n');
    assert.equal(empty.status, 1);
    assert.match(empty.stderr, /password is empty/);
    assert.equal(cli(dir, ['account', 'show', 'nopass']).status, 1);
    assert.match(cli(dir, ['account', 'password', 'ghost', '--password-stdin'], 'x').stderr, /no account "ghost"/);
    assert.match(cli(dir, ['account', 'password', '--help']).stdout, /--password-stdin/);
  });
});
