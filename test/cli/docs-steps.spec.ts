import assert from 'node:assert/strict';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// A newcomer runs the README's example session, then docs/webmail.md's steps, in that order.
describe("the README's example session, then the webmail's steps, in the order written", function () {
  this.timeout(60_000);

  it('creates alice and her token, gives alice a password, and creates bob with one', async () => {
    const env = { DATA_DIR: scratchDir() };
    assert.equal((await runCli(['account', 'create', 'alice'], env)).code, 0);
    const token = await runCli(['token', 'create', 'alice', '--scopes', 'read:filters write:filters'], env);
    assert.equal(token.code, 0, token.stderr);
    const password = await runCli(['account', 'password', 'alice', '--password-stdin'], env, 'a long password\n');
    assert.equal(password.code, 0, password.stderr);
    const bob = await runCli(['account', 'create', 'bob', '--password-stdin'], env, 'another one\n');
    assert.equal(bob.code, 0, bob.stderr);
  });
});
