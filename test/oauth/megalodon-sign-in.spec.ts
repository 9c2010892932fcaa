import assert from 'node:assert/strict';
import megalodonModule from 'megalodon';
import type { Browser } from 'playwright-core';
import { chromiumOrSkip } from '../support/browser.ts';
import { accountWithPassword, CALLBACK } from '../support/oauth-flow.ts';
import { TestServer } from '../support/test-server.ts';

// megalodon is CommonJS: the default import is module.exports under ESM and exports.default under tsx's CJS.
const generator: typeof megalodonModule.default = typeof megalodonModule === 'function' ? megalodonModule : megalodonModule.default;

describe('OAuth sign-in with megalodon and Chromium on the consent page', () => {
  let server: TestServer;
  let browser: Browser;
  before(async function () {
    browser = await chromiumOrSkip(this);
    server = await TestServer.start();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('registers an app, signs the user in, takes the token and creates a filter with it', async () => {
    const user = await accountWithPassword(server);
    const client = generator('mastodon', server.url);
    const app = await client.registerApp('Sign-in test', { scopes: ['read', 'write'], redirect_uris: CALLBACK });
    assert.ok(app.url);
    const page = await browser.newPage();
    try {
      // The app's redirect URI is answered in the browser itself: nothing leaves the machine.
      const redirected = new Promise<string>((resolve) => {
        void page.route(`${CALLBACK}**`, async (route) => {
          resolve(route.request().url());
          await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the app' });
        });
      });
      await page.goto(app.url);
      assert.match(await page.locator('h1').innerText(), /Authorize Sign-in test/);
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Authorize' }).click();
      const back = new URL(await redirected);
      const code = back.searchParams.get('code');
      assert.ok(code, back.toString());
      const token = await client.fetchAccessToken(app.client_id, app.client_secret, code, CALLBACK);
      assert.equal(token.token_type, 'Bearer');
      assert.equal(token.scope, 'read write');
      const signedIn = generator('mastodon', server.url, token.access_token);
      const created = await signedIn.createFilter('from an app', ['home']);
      assert.equal(created.status, 200);
      const listed = await server.request('GET', '/api/v1/filters', { token: token.access_token });
      assert.deepEqual(
        listed.body.map((f: { phrase: string }) => f.phrase),
        ['from an app'],
      );
      const verified = await signedIn.verifyAppCredentials();
      assert.equal(verified.data.name, 'Sign-in test');
    } finally {
      await page.close();
    }
  });
});
