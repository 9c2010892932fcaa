import { localLoginKey } from '../../src/webmail/mail/local-mailbox.ts';
import assert from 'node:assert/strict';
import { verifyPassword } from '../../src/accounts/passwords.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { storedPasswordHash } from '../support/stored-password-hash.ts';
import { SqliteLoginRateLimit } from '../../src/webmail/sessions/sqlite-login-rate-limit.ts';
import { openSessionDatabase } from '../../src/webmail/sessions/sqlite-sessions-schema.ts';

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
    assert.equal((await cli(dir, ['account', 'password', 'later', '--password-stdin'], 'first password\r\n')).code, 0);
    assert.equal(await verifyPassword('first password', (await storedPasswordHash(dir, 'later'))!), true);
    assert.equal((await cli(dir, ['account', 'password', id, '--password-stdin'], 'second password')).code, 0);
    assert.equal(await verifyPassword('second password', (await storedPasswordHash(dir, 'later'))!), true);
  });

  it('refuses an empty password without creating the account, and an unknown account', async () => {
    const dir = scratchDir();
    const empty = await cli(dir, ['account', 'create', 'nopass', '--password-stdin'], '\n');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /password is empty/);
    assert.match((await cli(dir, ['account', 'show', 'nopass'])).stderr, /no accounts in DATA_DIR .* \(accounts\.sqlite is missing\)/);
    assert.equal((await cli(dir, ['account', 'create', 'someone'])).code, 0);
    assert.match((await cli(dir, ['account', 'show', 'nopass'])).stderr, /no account "nopass"/);
    assert.match((await cli(dir, ['account', 'password', 'ghost', '--password-stdin'], 'long enough')).stderr, /no account "ghost"/);
    assert.match((await cli(dir, ['account', 'password', '--help'])).stdout, /--password-stdin/);
  });

  it("refuses a password outside Mastodon's 8 to 72 characters, changing nothing", async () => {
    const dir = scratchDir();
    assert.equal((await cli(dir, ['account', 'create', 'policy', '--password-stdin'], 'eight ch')).code, 0);
    const short = await cli(dir, ['account', 'password', 'policy', '--password-stdin'], 'seven c');
    assert.deepEqual([short.code, short.stderr], [1, 'error: the password is too short (minimum is 8 characters) (it is read from standard input)\n']);
    const long = await cli(dir, ['account', 'password', 'policy', '--password-stdin'], 'é'.repeat(73));
    assert.deepEqual([long.code, long.stderr], [1, 'error: the password is too long (maximum is 72 characters) (it is read from standard input)\n']);
    assert.equal((await cli(dir, ['account', 'password', 'policy', '--password-stdin'], 'é'.repeat(72))).code, 0);
    assert.equal(await verifyPassword('é'.repeat(72), (await storedPasswordHash(dir, 'policy'))!), true);
  });

  it('unlocks an account locked out by failed webmail logins', async () => {
    const dir = scratchDir();
    await cli(dir, ['account', 'create', 'locked']);
    // The webmail counts failures by the login name as typed (any case, with or without @MAIL_DOMAIN).
    const id = localLoginKey('Locked');
    const policy = { limit: 2, windowMillis: 3_600_000 };
    const db = openSessionDatabase(dir);
    const limit = new SqliteLoginRateLimit(db, policy);
    try {
      await limit.recordFailure(id);
      await limit.recordFailure(id);
      assert.equal(await limit.isLocked(id), true);
      const unlocked = await cli(dir, ['account', 'unlock', 'locked']);
      assert.deepEqual([unlocked.code, unlocked.stderr], [0, 'unlocked locked\n']);
      assert.equal(await limit.isLocked(id), false);
      assert.match((await cli(dir, ['account', 'unlock', 'nobody'])).stderr, /no account "nobody"/);
    } finally {
      db.close();
    }
  });
});
