import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AccountError, grants, parseScopes } from '../../src/accounts/account-store.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// What every adapter promises is in test/contracts/account-store.contract.ts; this is the SQLite file's own history.
describe('SQLite account store', () => {
  it('adds the last-use column to a file made before tokens recorded it', async () => {
    const dir = scratchDir();
    const old = new Database(join(dir, 'accounts.sqlite'));
    old.exec(`CREATE TABLE accounts (id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT, created_at TEXT NOT NULL);
      CREATE TABLE access_tokens (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), secret_hash BLOB NOT NULL, scopes TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);`);
    old.close();
    const store = SqliteAccountStore.inDataDir(dir);
    const account = await store.createAccount('gina');
    assert.notEqual(await store.authenticate(await store.createToken(account.id, ['read'])), null);
    assert.notEqual((await store.listTokens(account.id))[0]!.lastUsedAt, null);
    await store.close();
  });
});

describe('scopes', () => {
  it('lets read cover read:filters and write cover write:filters, not the other way round', () => {
    assert.equal(grants(['read'], 'read:filters'), true);
    assert.equal(grants(['read:filters'], 'read:filters'), true);
    assert.equal(grants(['write', 'write:filters'], 'read:filters'), false);
    assert.equal(grants(['read:filters'], 'read'), false);
  });

  it('parses a space-separated list and refuses unknown scopes', () => {
    assert.deepEqual(parseScopes('read:filters  write:filters'), ['read:filters', 'write:filters']);
    assert.throws(() => parseScopes('root'), AccountError);
    assert.throws(() => parseScopes('  '), AccountError);
  });
});
