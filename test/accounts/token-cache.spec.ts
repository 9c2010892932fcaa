import assert from 'node:assert/strict';
import { TokenCache } from '../../src/accounts/token-cache.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const grant = { tokenId: '1', account: { id: '2', username: 'u', createdAt: '2024-01-01T00:00:00.000Z' }, scopes: ['read'] };

describe('authenticated-token cache', function () {
  this.timeout(60_000);

  it('answers from memory while the file is unchanged, and forgets everything once it changes', () => {
    let version = 1;
    const cache = new TokenCache(() => version);
    assert.equal(cache.get('a'), undefined);
    cache.remember('a', { grant, lastUsedMs: 0 });
    assert.equal(cache.get('a')?.grant, grant);
    assert.equal(cache.get('b'), undefined);
    version = 2;
    assert.equal(cache.get('a'), undefined, 'another connection committed: nothing cached is trusted');
    assert.equal(cache.get('a'), undefined);
  });

  it('refuses a cached token at once when the CLI, another process, revokes it', async () => {
    const dir = scratchDir();
    const store = SqliteAccountStore.inDataDir(dir);
    const account = await store.createAccount(`cache${process.pid}`);
    const token = await store.createToken(account.id, ['read']);
    const other = await store.createToken(account.id, ['read']);
    assert.equal((await store.authenticate(token))?.account.id, account.id);
    assert.equal((await store.authenticate(token))?.account.id, account.id, 'now answered from the cache');
    await store.authenticate(other);
    const revoked = await runCli(['token', 'revoke', token], { DATA_DIR: dir });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await store.authenticate(token), null);
    assert.equal((await store.authenticate(other))?.account.id, account.id, 'other tokens still work');
    await store.close();
  });

  it('refuses a cached token at once when another connection revokes it by id, or this one does', async () => {
    const dir = scratchDir();
    const store = SqliteAccountStore.inDataDir(dir);
    const sibling = SqliteAccountStore.inDataDir(dir);
    const account = await store.createAccount(`cache${process.pid}b`);
    const [first, second] = [await store.createToken(account.id, ['read']), await store.createToken(account.id, ['write'])];
    const firstGrant = await store.authenticate(first);
    await store.authenticate(second);
    assert.equal(await sibling.revokeTokenById(firstGrant!.tokenId), true);
    assert.equal(await store.authenticate(first), null);
    assert.equal(await store.revokeToken(second), true);
    assert.equal(await store.authenticate(second), null);
    await Promise.all([store.close(), sibling.close()]);
  });
});
