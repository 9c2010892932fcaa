import assert from 'node:assert/strict';
import type { CodeGrant, OAuthStore } from '../../src/oauth/oauth-store.ts';
import { openOAuthStore } from '../../src/stores.ts';
import { HOSTILE_KEYS, type LocationFixture } from '../support/store-locations.ts';
import { contractSubject } from './contract-subject.ts';
import { storesAtLocations } from './stores-at-locations.ts';

const newApp = { name: 'An app', website: null, redirectUris: ['https://app.example/cb'], scopes: ['read', 'write'] };
const grant = (appId: string, expiresAt = new Date(Date.now() + 60_000)): CodeGrant => ({
  appId,
  accountId: '1',
  redirectUri: 'https://app.example/cb',
  scopes: ['read'],
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  codeChallengeMethod: 'S256',
  expiresAt,
});

/** The OAuthStore port: what the SQLite and MongoDB adapters both promise. */
export function oauthStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`OAuthStore contract: ${name}`, function () {
    const given = contractSubject<OAuthStore>(storesAtLocations(fixture, openOAuthStore));

    it('verifies a client by its secret only, and keeps no secret in what it returns', async () => {
      const { app, clientSecret } = await given.store.createApp(newApp);
      assert.equal((await given.store.verifyClient(app.clientId, clientSecret))?.id, app.id);
      assert.equal(await given.store.verifyClient(app.clientId, `${clientSecret}x`), null);
      assert.equal(await given.store.verifyClient('unknown', clientSecret), null);
      assert.deepEqual(await given.store.findAppById(app.id), app);
      assert.deepEqual(await given.store.listApps(), [app]);
      assert.ok(!JSON.stringify(await given.store.listApps()).includes(clientSecret));
    });

    it('lets a code be used once, by one caller', async () => {
      const { app } = await given.store.createApp(newApp);
      const code = await given.store.createCode(grant(app.id));
      assert.deepEqual((await given.store.findCode(code))?.scopes, ['read']);
      assert.deepEqual(await Promise.all([given.store.useCode(code), given.store.useCode(code)]), [true, false]);
      assert.equal(await given.store.findCode(code), null);
      assert.equal(await given.store.useCode('not a code'), false);
    });

    it('lets a code be used once also between two connections racing for it', async () => {
      const sibling = await given.openSibling();
      const { app } = await given.store.createApp(newApp);
      for (let round = 0; round < 5; round += 1) {
        const code = await given.store.createCode(grant(app.id));
        const uses = await Promise.all([given.store.useCode(code), sibling.useCode(code), given.store.useCode(code), sibling.useCode(code)]);
        assert.equal(uses.filter(Boolean).length, 1, `round ${round}: ${JSON.stringify(uses)}`);
      }
    });

    it('keeps a code grant whole, its expiry too, so the caller can refuse an expired code', async () => {
      const { app } = await given.store.createApp(newApp);
      const expired = grant(app.id, new Date(Date.now() - 1000));
      const code = await given.store.createCode(expired);
      assert.deepEqual(await given.store.findCode(code), expired);
      const fresh = grant(app.id);
      assert.deepEqual(await given.store.findCode(await given.store.createCode(fresh)), fresh);
    });

    it('keeps apps, codes and app tokens across a restart of the store', async () => {
      const { app, clientSecret } = await given.store.createApp(newApp);
      const code = await given.store.createCode(grant(app.id));
      const token = await given.store.createAppToken(app.id, ['read']);
      await given.restart();
      assert.equal((await given.store.verifyClient(app.clientId, clientSecret))?.id, app.id);
      assert.equal(await given.store.useCode(code), true);
      assert.equal((await given.store.authenticateAppToken(token))?.app.id, app.id);
    });

    it('makes one device-cookie key for every connection, racing first callers too, and keeps it across a restart', async () => {
      const sibling = await given.openSibling();
      const keys = await Promise.all([given.store.deviceCookieKey(), sibling.deviceCookieKey(), given.store.deviceCookieKey(), sibling.deviceCookieKey()]);
      assert.equal(keys[0].length, 32);
      for (const key of keys) assert.deepEqual(key, keys[0]);
      await given.restart();
      assert.deepEqual(await given.store.deviceCookieKey(), keys[0]);
      const elsewhere = await given.openFresh();
      assert.notDeepEqual(await elsewhere.deviceCookieKey(), keys[0]);
    });

    it('treats hostile strings (operators, paths, prototype names, a huge one) as plain data that names nothing', async () => {
      const { app } = await given.store.createApp(newApp);
      await given.store.createCode(grant(app.id));
      await given.store.createAppToken(app.id, ['read']);
      for (const key of HOSTILE_KEYS) {
        assert.equal(await given.store.findApp(key), null, key.slice(0, 20));
        assert.equal(await given.store.findAppById(key), null);
        assert.equal(await given.store.verifyClient(key, key), null);
        assert.equal(await given.store.findCode(key), null);
        assert.equal(await given.store.useCode(key), false);
        assert.equal(await given.store.appOfToken(key), null);
        assert.equal(await given.store.authenticateAppToken(key), null);
        assert.equal(await given.store.revokeApp(key), null);
      }
      assert.equal((await given.store.findApp(app.clientId))?.id, app.id);
    });

    it('authenticates an app token until it or its app is revoked, and names the account tokens an app revocation ends', async () => {
      const { app } = await given.store.createApp(newApp);
      const token = await given.store.createAppToken(app.id, ['read']);
      assert.deepEqual((await given.store.authenticateAppToken(token))?.scopes, ['read']);
      assert.equal(await given.store.authenticateAppToken(`${token}x`), null);
      await given.store.recordAccountToken('12345', app.id);
      assert.equal((await given.store.appOfToken('12345'))?.id, app.id);
      assert.deepEqual(await given.store.revokeApp(app.id), ['12345']);
      assert.equal(await given.store.authenticateAppToken(token), null);
      assert.equal(await given.store.findApp(app.clientId), null);
      assert.equal(await given.store.revokeApp(app.id), null);
      const other = await given.store.createApp(newApp);
      const second = await given.store.createAppToken(other.app.id, ['read']);
      assert.equal(await given.store.revokeAppToken(second), true);
      assert.equal(await given.store.authenticateAppToken(second), null);
    });
  });
}
