import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { OAuthStore } from '../../src/oauth/oauth-store.ts';
import { SqliteOAuthStore } from '../../src/oauth/sqlite-oauth-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const newApp = { name: 'An app', website: null, redirectUris: ['https://app.example/cb'], scopes: ['read', 'write'] };
const grant = (appId: string) => ({
  appId,
  accountId: '1',
  redirectUri: 'https://app.example/cb',
  scopes: ['read'],
  codeChallenge: null,
  codeChallengeMethod: null,
  expiresAt: new Date(Date.now() + 60_000),
});

/** The OAuthStore contract, for every adapter (only the embedded one exists so far). */
const adapters: [string, () => OAuthStore][] = [['sqlite', () => new SqliteOAuthStore(join(scratchDir(), 'oauth.sqlite'))]];

for (const [name, open] of adapters) {
  describe(`OAuthStore contract: ${name}`, () => {
    let store: OAuthStore;
    beforeEach(() => {
      store = open();
    });
    afterEach(() => store.close());

    it('verifies a client by its secret only, and keeps no secret in what it returns', async () => {
      const { app, clientSecret } = await store.createApp(newApp);
      assert.equal((await store.verifyClient(app.clientId, clientSecret))?.id, app.id);
      assert.equal(await store.verifyClient(app.clientId, `${clientSecret}x`), null);
      assert.equal(await store.verifyClient('unknown', clientSecret), null);
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
