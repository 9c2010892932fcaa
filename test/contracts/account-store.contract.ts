import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../../src/accounts/account-store.ts';
import { openAccountStore } from '../../src/stores.ts';
import { HOSTILE_KEYS, type LocationFixture } from '../support/store-locations.ts';
import { contractSubject } from './contract-subject.ts';
import { storesAtLocations } from './stores-at-locations.ts';

// By name: the MongoDB adapter is loaded on demand, and under mocha's loader that is a second module instance.
const AccountError = { name: 'AccountError' };

const fresh = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8)}`;

/** The AccountStore port: what the SQLite and MongoDB adapters both promise. */
export function accountStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`AccountStore contract: ${name}`, function () {
    const given = contractSubject<AccountStore>(storesAtLocations(fixture, openAccountStore));

    it('creates an account with a digit-string id and finds it by id or username in any case', async () => {
      const username = fresh('Alice');
      const account = await given.store.createAccount(username);
      assert.match(account.id, /^[0-9]+$/);
      assert.deepEqual(await given.store.findAccount(account.id), account);
      assert.deepEqual(await given.store.findAccount(username.toLowerCase()), account);
      assert.deepEqual(await given.store.findAccount(username.toUpperCase()), account);
      assert.equal(await given.store.findAccount(fresh('bob')), null);
    });

    it('refuses a taken username in any case, a malformed one, and one of two racing creations', async () => {
      const username = fresh('bob');
      await given.store.createAccount(username);
      await assert.rejects(given.store.createAccount(username.toUpperCase()), AccountError);
      for (const bad of ['no spaces', '.dot', 'a'.repeat(31), '$where', 'a$b', 'ünï', ''])
        await assert.rejects(given.store.createAccount(bad), AccountError, bad);
      const other = await given.openSibling();
      const racing = fresh('race');
      const outcomes = await Promise.allSettled([given.store.createAccount(racing), other.createAccount(racing.toUpperCase())]);
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
      assert.ok(((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason as Error).name === 'AccountError');
    });

    it('authenticates a token to its account and scopes, and forgets it once revoked', async () => {
      const account = await given.store.createAccount(fresh('carol'));
      const token = await given.store.createToken(account.id, ['read:filters', 'write']);
      const grant = await given.store.authenticate(token);
      assert.deepEqual(grant?.account, account);
      assert.deepEqual(grant?.scopes, ['read:filters', 'write']);
      assert.equal(await given.store.isRevokedToken(token), false);
      assert.equal(await given.store.revokeToken(token), true);
      assert.equal(await given.store.authenticate(token), null);
      assert.equal(await given.store.revokeToken(token), false);
      // "Revoked" only for the whole token: its id with another secret tells nothing.
      assert.equal(await given.store.isRevokedToken(token), true);
      assert.equal(await given.store.isRevokedToken(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`), false);
      assert.equal(await given.store.isRevokedToken('not a token'), false);
    });

    it('lists tokens oldest first with their last use, and revokes one by its id once', async () => {
      const account = await given.store.createAccount(fresh('ellen'));
      const other = await given.store.createAccount(fresh('frank'));
      const used = await given.store.createToken(account.id, ['read']);
      await given.store.createToken(account.id, ['write']);
      await given.store.createToken(other.id, ['read']);
      const grant = await given.store.authenticate(used);
      const [first, second, ...rest] = await given.store.listTokens(account.id);
      assert.equal(rest.length, 0);
      assert.equal(first!.tokenId, grant!.tokenId);
      assert.deepEqual([first!.accountId, first!.scopes, second!.scopes], [account.id, ['read'], ['write']]);
      assert.ok(first!.lastUsedAt !== null && Date.parse(first!.lastUsedAt) >= Date.parse(first!.createdAt));
      assert.deepEqual([second!.lastUsedAt, first!.revokedAt], [null, null]);
      assert.equal(await given.store.tokenRevokedAt(first!.tokenId), null);
      assert.equal(await given.store.revokeTokenById(first!.tokenId), true);
      assert.equal(await given.store.revokeTokenById(first!.tokenId), false);
      assert.match((await given.store.tokenRevokedAt(first!.tokenId)) ?? '', /^\d{4}-\d{2}-\d{2}T/);
      assert.equal(await given.store.tokenRevokedAt('12345'), null);
      assert.equal(await given.store.tokenRevokedAt('$where'), null);
      assert.deepEqual(await given.store.findToken(first!.tokenId), (await given.store.listTokens(account.id))[0]);
      assert.equal((await given.store.findToken(first!.tokenId))!.accountId, account.id);
      assert.equal(await given.store.findToken('12345'), null);
      assert.equal(await given.store.findToken('$where'), null);
      assert.equal(await given.store.revokeTokenById('12345'), false);
      assert.equal(await given.store.authenticate(used), null);
      assert.notEqual((await given.store.listTokens(account.id))[0]!.revokedAt, null);
    });

    it('refuses a token for no account, and a token whose secret differs in one character', async () => {
      await assert.rejects(given.store.createToken('12345', ['read']), AccountError);
      const account = await given.store.createAccount(fresh('dave'));
      const token = await given.store.createToken(account.id, ['read']);
      const last = token.at(-1) === 'A' ? 'B' : 'A';
      assert.equal(await given.store.authenticate(token.slice(0, -1) + last), null);
      for (const garbage of ['', 'garbage', `${token}x`, `${'9'.repeat(19)}_${'a'.repeat(43)}`]) assert.equal(await given.store.authenticate(garbage), null);
    });

    it('sees what another connection made or revoked at once', async () => {
      const other = await given.openSibling();
      const account = await other.createAccount(fresh('erin'));
      const token = await other.createToken(account.id, ['read']);
      assert.equal((await given.store.authenticate(token))?.account.id, account.id);
      await other.revokeToken(token);
      assert.equal(await given.store.authenticate(token), null);
      await other.setPasswordHash(account.id, 'scrypt$other');
      assert.equal(await given.store.passwordHash(account.id), 'scrypt$other');
    });

    it('keeps password hashes per account, and refuses one for no account', async () => {
      const account = await given.store.createAccount(fresh('frank'));
      assert.equal(await given.store.passwordHash(account.id), null);
      await given.store.setPasswordHash(account.id, 'scrypt$hash');
      assert.equal(await given.store.passwordHash(account.id), 'scrypt$hash');
      await assert.rejects(given.store.setPasswordHash('12345', 'scrypt$x'), AccountError);
    });

    it('completes usernames by prefix in any case, ordered, treating pattern characters literally', async () => {
      const stem = `g${randomUUID().slice(0, 6)}`;
      await given.store.createAccount(`${stem}_ino`);
      await given.store.createAccount(`${stem}_Ina`);
      await given.store.createAccount(fresh('hank'));
      assert.deepEqual(
        (await given.store.searchAccounts(stem.toUpperCase(), 10)).map((a) => a.username),
        [`${stem}_Ina`, `${stem}_ino`],
      );
      assert.deepEqual(
        (await given.store.searchAccounts(stem, 1)).map((a) => a.username),
        [`${stem}_Ina`],
      );
      for (const pattern of ['%', '.', '.*', '^', '$', '\\', '[a-z]', '(']) assert.deepEqual(await given.store.searchAccounts(pattern, 10), [], pattern);
    });

    it('keeps usernames that are prototype names or dotted paths as plain names', async () => {
      const names = ['__proto__', 'constructor', 'prototype', 'a.b', 'hasOwnProperty'];
      const made = [];
      for (const username of names) made.push(await given.store.createAccount(username));
      for (const [i, username] of names.entries()) assert.deepEqual(await given.store.findAccount(username), made[i], username);
      assert.equal(await given.store.findAccount('a'), null, 'a dotted name is no path');
      await assert.rejects(given.store.createAccount('__PROTO__'), AccountError, 'taken, in any case');
      assert.deepEqual(
        (await given.store.searchAccounts('__', 10)).map((a) => a.username),
        ['__proto__'],
      );
    });

    it('finds nothing for hostile names and ids, and stores none of them as a path or an operator', async () => {
      const account = await given.store.createAccount(fresh('k'));
      await given.store.setPasswordHash(account.id, 'scrypt$k');
      for (const key of [...HOSTILE_KEYS, '\u212A', account.username.replace('k', '\u212A')]) {
        const label = key.slice(0, 20);
        assert.equal(await given.store.findAccount(key), null, label);
        assert.deepEqual(await given.store.listTokens(key), [], label);
        assert.equal(await given.store.revokeTokenById(key), false, label);
        assert.equal(await given.store.passwordHash(key), null, label);
        assert.equal(await given.store.authenticate(key), null, label);
        await assert.rejects(given.store.setPasswordHash(key, 'scrypt$evil'), AccountError, label);
      }
      const operator = { $ne: null } as unknown as string;
      assert.equal(await given.store.findAccount(operator).catch(() => null), null, 'an operator object finds nothing');
      assert.equal(await given.store.passwordHash(account.id), 'scrypt$k', 'the real account is untouched');
      assert.deepEqual(await given.store.findAccount(account.id), account);
    });
  });
}
