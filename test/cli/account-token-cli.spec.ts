import assert from 'node:assert/strict';
import { runCli } from '../support/run-cli.ts';
import { TestServer } from '../support/test-server.ts';

describe('account and token CLI', function () {
  this.timeout(60_000);
  let server: TestServer;
  let env: Record<string, string>;

  before(async () => {
    server = await TestServer.start();
    env = { DATA_DIR: server.service.stores.dataDir };
  });
  after(() => server.close());

  it('creates an account and prints only its id', async () => {
    const result = await runCli(['account', 'create', `cli${process.pid}a`], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^[0-9]+\n$/);
    const found = await server.service.stores.accounts.findAccount(`cli${process.pid}a`);
    assert.equal(found?.id, result.stdout.trim());
  });

  it('makes a token the running server accepts, and revokes it', async () => {
    const username = `cli${process.pid}b`;
    assert.equal((await runCli(['account', 'create', username], env)).code, 0);
    const created = await runCli(['token', 'create', username, '--scopes', 'read:filters write:filters'], env);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    assert.equal(created.stdout, `${token}\n`);
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 200);
    assert.equal((await server.request('POST', '/api/v2/filters', { token, form: 'title=t&context[]=home' })).status, 200);
    const revoked = await runCli(['token', 'revoke', token], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, '');
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 401);
    // Again, whole or by id: it says it is already revoked, rather than that no such token exists.
    const tokenId = token.split('_')[0]!;
    for (const value of [token, tokenId]) {
      const again = await runCli(['token', 'revoke', value], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`^error: token ${tokenId} is already revoked \\(since \\d{4}-\\d{2}-\\d{2}T[^)]+\\)\\n$`));
    }
    assert.equal((await runCli(['token', 'revoke', '99999'], env)).stderr, 'error: no active token with id 99999\n');
  });

  it('refuses a taken username, an unknown account and an unknown scope with a message and exit 1', async () => {
    const username = `cli${process.pid}c`;
    await runCli(['account', 'create', username], env);
    for (const args of [
      ['account', 'create', username],
      ['token', 'create', 'nobody-here'],
      ['token', 'create', username, '--scopes', 'root'],
    ]) {
      const result = await runCli(args, env);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /error: /);
    }
  });

  it('refuses a bad setting with one message on stderr and exit 1', async () => {
    const result = await runCli(['account', 'create', `cli${process.pid}c`], { ...env, LOG_LEVEL: 'verbose' });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'error: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose\n');
  });

  it('has --help on every command', async () => {
    for (const args of [['--help'], ['account', '--help'], ['account', 'create', '--help'], ['token', 'create', '--help'], ['token', 'revoke', '--help']]) {
      const result = await runCli(args, env);
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, /Usage: content-filters/);
    }
  });
});
