import assert from 'node:assert/strict';
import type { CodeGrant, OAuthStore } from '../../src/oauth/oauth-store.ts';
import { openOAuthStore } from '../../src/oauth/open-oauth-store.ts';
import { HOSTILE_KEYS, type LocationFixture, type StoreLocation } from '../support/store-locations.ts';

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
    let places: LocationFixture;
    let location: StoreLocation;
    let store: OAuthStore;
    const opened: OAuthStore[] = [];
    const open = async () => {
      const made = await openOAuthStore(location);
      opened.push(made);
      return made;
    };

    before(function () {
      const found = fixture();
      if (!found) this.skip();
      places = found!;
    });
    beforeEach(async () => {
      location = places.fresh();
      store = await open();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((made) => made.close()));
    });

    it('verifies a client by its secret only, and keeps no secret in what it returns', async () => {
      const { app, clientSecret } = await store.createApp(newApp);
      assert.equal((await store.verifyClient(app.clientId, clientSecret))?.id, app.id);
      assert.equal(await store.verifyClient(app.clientId, `${clientSecret}x`), null);
      assert.equal(await store.verifyClient('unknown', clientSecret), null);
      assert.deepEqual(await store.findAppById(app.id), app);
      assert.deepEqual(await store.listApps(), [app]);
      assert.ok(!JSON.stringify(await store.listApps()).includes(clientSecret));
    });

    it('lets a code be used once, by one caller', async () => {
      const { app } = await store.createApp(newApp);
      const code = await store.createCode(grant(app.id));
      assert.deepEqual((await store.findCode(code))?.scopes, ['read']);
      assert.deepEqual(await Promise.all([store.useCode(code), store.useCode(code)]), [true, false]);
      assert.equal(await store.findCode(code), null);
      assert.equal(await store.useCode('not a code'), false);
    });

    it('lets a code be used once also between two connections racing for it', async () => {
      const sibling = await open();
      const { app } = await store.createApp(newApp);
      for (let round = 0; round < 5; round += 1) {
        const code = await store.createCode(grant(app.id));
        const uses = await Promise.all([store.useCode(code), sibling.useCode(code), store.useCode(code), sibling.useCode(code)]);
        assert.equal(uses.filter(Boolean).length, 1, `round ${round}: ${JSON.stringify(uses)}`);
      }
    });

    it('keeps a code grant whole, its expiry too, so the caller can refuse an expired code', async () => {
      const { app } = await store.createApp(newApp);
      const expired = grant(app.id, new Date(Date.now() - 1000));
      const code = await store.createCode(expired);
      assert.deepEqual(await store.findCode(code), expired);
      const fresh = grant(app.id);
      assert.deepEqual(await store.findCode(await store.createCode(fresh)), fresh);
    });

    it('keeps apps, codes and app tokens across a restart of the store', async () => {
      const { app, clientSecret } = await store.createApp(newApp);
      const code = await store.createCode(grant(app.id));
      const token = await store.createAppToken(app.id, ['read']);
      await store.close();
      store = await open();
      assert.equal((await store.verifyClient(app.clientId, clientSecret))?.id, app.id);
      assert.equal(await store.useCode(code), true);
      assert.equal((await store.authenticateAppToken(token))?.app.id, app.id);
    });

    it('makes one device-cookie key for every connection, racing first callers too, and keeps it across a restart', async () => {
      const sibling = await open();
      const keys = await Promise.all([store.deviceCookieKey(), sibling.deviceCookieKey(), store.deviceCookieKey(), sibling.deviceCookieKey()]);
      assert.equal(keys[0].length, 32);
      for (const key of keys) assert.deepEqual(key, keys[0]);
      await Promise.all([store.close(), sibling.close()]);
      opened.length = 0;
      store = await open();
      assert.deepEqual(await store.deviceCookieKey(), keys[0]);
      const elsewhere = await openOAuthStore(places.fresh());
      opened.push(elsewhere);
      assert.notDeepEqual(await elsewhere.deviceCookieKey(), keys[0]);
    });

    it('treats hostile strings (operators, paths, prototype names, a huge one) as plain data that names nothing', async () => {
      const { app } = await store.createApp(newApp);
      await store.createCode(grant(app.id));
      await store.createAppToken(app.id, ['read']);
      for (const key of HOSTILE_KEYS) {
        assert.equal(await store.findApp(key), null, key.slice(0, 20));
        assert.equal(await store.findAppById(key), null);
        assert.equal(await store.verifyClient(key, key), null);
        assert.equal(await store.findCode(key), null);
        assert.equal(await store.useCode(key), false);
        assert.equal(await store.appOfToken(key), null);
        assert.equal(await store.authenticateAppToken(key), null);
        assert.equal(await store.revokeApp(key), null);
      }
      assert.equal((await store.findApp(app.clientId))?.id, app.id);
    });

    it('authenticates an app token until it or its app is revoked, and names the account tokens an app revocation ends', async () => {
      const { app } = await store.createApp(newApp);
      const token = await store.createAppToken(app.id, ['read']);
      assert.deepEqual((await store.authenticateAppToken(token))?.scopes, ['read']);
      assert.equal(await store.authenticateAppToken(`${token}x`), null);
      await store.recordAccountToken('12345', app.id);
      assert.equal((await store.appOfToken('12345'))?.id, app.id);
      assert.deepEqual(await store.revokeApp(app.id), ['12345']);
      assert.equal(await store.authenticateAppToken(token), null);
      assert.equal(await store.findApp(app.clientId), null);
      assert.equal(await store.revokeApp(app.id), null);
      const other = await store.createApp(newApp);
      const second = await store.createAppToken(other.app.id, ['read']);
      assert.equal(await store.revokeAppToken(second), true);
      assert.equal(await store.authenticateAppToken(second), null);
    });
  });
}
