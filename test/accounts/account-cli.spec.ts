import assert from 'node:assert/strict';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { storedPasswordHash } from '../support/stored-password-hash.ts';

const cli = (dataDir: string, args: string[], input = '') => runCli(args, { DATA_DIR: dataDir }, input);

describe('account CLI passwords', function () {
  this.timeout(90_000);

  it('creates an account with a password read from stdin and prints only the id', async () => {
    const dir = scratchDir();
    const run = await cli(dir, ['account', 'create', 'webuser', '--password-stdin'], 'pass word\n');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^[0-9]+\n$/);
    const hash = await storedPasswordHash(dir, 'webuser');
    assert.ok(hash?.startsWith('scrypt$'));
    assert.equal(await verifyPassword('pass word', hash!), true);
    assert.equal(hash!.includes('pass word'), false);
  });

  it('sets a new password on an existing account by name or id', async () => {
    const dir = scratchDir();
    const id = (await cli(dir, ['account', 'create', 'later'])).stdout.trim();
    assert.equal(await storedPasswordHash(dir, 'later'), null);
    assert.equal((await cli(dir, ['account', 'password', 'later', '--password-stdin'], 'first\r\n')).code, 0);
    assert.equal(await verifyPassword('first', (await storedPasswordHash(dir, 'later'))!), true);
    assert.equal((await cli(dir, ['account', 'password', id, '--password-stdin'], 'second')).code, 0);
    assert.equal(await verifyPassword('second', (await storedPasswordHash(dir, 'later'))!), true);
  });

  it('refuses an empty password without creating the account, and an unknown account', async () => {
    const dir = scratchDir();
    const empty = await cli(dir, ['account', 'create', 'nopass', '--password-stdin'], '\n');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /password is empty/);
    assert.match((await cli(dir, ['account', 'show', 'nopass'])).stderr, /no accounts in DATA_DIR .* \(accounts\.sqlite is missing\)/);
    assert.equal((await cli(dir, ['account', 'create', 'someone'])).code, 0);
    assert.match((await cli(dir, ['account', 'show', 'nopass'])).stderr, /no account "nopass"/);
    assert.match((await cli(dir, ['account', 'password', 'ghost', '--password-stdin'], 'x')).stderr, /no account "ghost"/);
    assert.match((await cli(dir, ['account', 'password', '--help'])).stdout, /--password-stdin/);
  });
});
