import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AccountError, grants, parseScopes } from '../../src/accounts/account-store.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('SQLite account store', () => {
  const open = () => SqliteAccountStore.inDataDir(scratchDir());

  it('creates an account with a digit-string id and finds it by id or username', async () => {
    const store = open();
    const account = await store.createAccount('Alice_1');
    assert.match(account.id, /^[0-9]+$/);
    assert.deepEqual(await store.findAccount(account.id), account);
    assert.deepEqual(await store.findAccount('alice_1'), account);
    assert.equal(await store.findAccount('bob'), null);
  });

  it('refuses a taken or malformed username', async () => {
    const store = open();
    await store.createAccount('bob');
    await assert.rejects(store.createAccount('BOB'), AccountError);
    await assert.rejects(store.createAccount('no spaces'), AccountError);
    await assert.rejects(store.createAccount('.dot'), AccountError);
  });

  it('authenticates a token to its account and scopes, and forgets it once revoked', async () => {
    const store = open();
    const account = await store.createAccount('carol');
    const token = await store.createToken(account.id, ['read:filters', 'write']);
    const grant = await store.authenticate(token);
    assert.deepEqual(grant?.account, account);
    assert.deepEqual(grant?.scopes, ['read:filters', 'write']);
    assert.equal(await store.revokeToken(token), true);
    assert.equal(await store.authenticate(token), null);
    assert.equal(await store.revokeToken(token), false);
  });

  it('lists tokens with their last use and revokes one by its id', async () => {
    const store = open();
    const account = await store.createAccount('ellen');
    const other = await store.createAccount('frank');
    const used = await store.createToken(account.id, ['read']);
    await store.createToken(account.id, ['write']);
    await store.createToken(other.id, ['read']);
    const grant = await store.authenticate(used);
    const [first, second, ...rest] = await store.listTokens(account.id);
    assert.equal(rest.length, 0);
    assert.equal(first!.tokenId, grant!.tokenId);
    assert.deepEqual([first!.accountId, first!.scopes, second!.scopes], [account.id, ['read'], ['write']]);
    assert.ok(first!.lastUsedAt !== null && Date.parse(first!.lastUsedAt) >= Date.parse(first!.createdAt));
    assert.deepEqual([second!.lastUsedAt, first!.revokedAt], [null, null]);
    assert.equal(await store.revokeTokenById(first!.tokenId), true);
    assert.equal(await store.revokeTokenById(first!.tokenId), false);
    assert.equal(await store.revokeTokenById('12345'), false);
    assert.equal(await store.authenticate(used), null);
    assert.notEqual((await store.listTokens(account.id))[0]!.revokedAt, null);
  });

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

  it('refuses a token whose secret differs in one character', async () => {
    const store = open();
    const account = await store.createAccount('dave');
    const token = await store.createToken(account.id, ['read']);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    assert.equal(await store.authenticate(token.slice(0, -1) + last), null);
    assert.equal(await store.authenticate(''), null);
    assert.equal(await store.authenticate('garbage'), null);
  });

  it('sees a token made by another connection to the same file at once', async () => {
    const dir = scratchDir();
    const server = SqliteAccountStore.inDataDir(dir);
    const cli = SqliteAccountStore.inDataDir(dir);
    const account = await cli.createAccount('erin');
    const token = await cli.createToken(account.id, ['read']);
    assert.equal((await server.authenticate(token))?.account.id, account.id);
    await cli.revokeToken(token);
    assert.equal(await server.authenticate(token), null);
  });

  it('keeps password hashes per account', async () => {
    const store = open();
    const account = await store.createAccount('frank');
    assert.equal(await store.passwordHash(account.id), null);
    await store.setPasswordHash(account.id, 'scrypt$hash');
    assert.equal(await store.passwordHash(account.id), 'scrypt$hash');
  });

  it('completes usernames by prefix, treating LIKE wildcards literally', async () => {
    const store = open();
    await store.createAccount('gina');
    await store.createAccount('gino');
    await store.createAccount('hank');
    assert.deepEqual(
      (await store.searchAccounts('gin', 10)).map((a) => a.username),
      ['gina', 'gino'],
    );
    assert.deepEqual(await store.searchAccounts('%', 10), []);
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
