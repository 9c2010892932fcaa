import assert from 'node:assert/strict';
import { MASTODON_OWNS_ACCOUNTS } from '../../src/mastodon/mastodon-account-store.ts';
import { WEBMAIL_LOCAL_ACCOUNTS_REFUSED } from '../../src/mastodon/mastodon-webmail-refusal.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

describe('Mastodon mode: accounts, apps and tokens are Mastodon’s alone', function () {
  this.timeout(60_000);
  let db: MastodonTestDatabase;
  let server: TestServer;

  before(async () => {
    db = await MastodonTestDatabase.create();
    server = await TestServer.start({ MASTODON_DATABASE_URL: db.url });
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  it('the OAuth endpoints refuse with a 403 that names Mastodon, and issue nothing', async () => {
    const token = await db.token(await db.user());
    const calls: [string, string, Record<string, unknown>][] = [
      ['POST', '/api/v1/apps', { json: { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } }],
      ['GET', '/api/v1/apps/verify_credentials', { token }],
      ['GET', '/oauth/authorize?response_type=code&client_id=x', {}],
      ['POST', '/oauth/token', { form: 'grant_type=client_credentials&client_id=x&client_secret=y' }],
      ['POST', '/oauth/revoke', { form: `token=${token}&client_id=x&client_secret=y` }],
    ];
    for (const [method, path, options] of calls) {
      const answer = await server.request(method, path, options);
      assert.deepEqual([answer.status, answer.body], [403, { error: MASTODON_OWNS_ACCOUNTS }], `${method} ${path}`);
    }
    // /oauth/revoke above revoked nothing: the token still works.
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 200);
  });

  it('the account port refuses every write with the same message', async () => {
    const accounts = server.service.stores.accounts;
    const user = await db.user();
    for (const write of [
      () => accounts.createAccount('newcomer'),
      () => accounts.createToken(user.accountId, ['read']),
      () => accounts.revokeTokenById('1'),
      () => accounts.setPasswordHash(user.accountId, 'x'),
    ]) {
      await assert.rejects(write(), { name: 'AccountError', message: MASTODON_OWNS_ACCOUNTS });
    }
  });

  it('the webmail’s local accounts refuse, saying Mastodon owns them (without IMAP_URL)', async () => {
    for (const path of ['/webmail/', '/webmail/?_task=login', '/webmail']) {
      const page = await server.request('GET', path);
      assert.equal(page.status, 403, path);
      assert.equal(page.body, `${WEBMAIL_LOCAL_ACCOUNTS_REFUSED}\n`);
    }
    const login = await server.request('POST', '/webmail/?_task=login&_action=login', { form: '_user=a&_pass=b&_token=c' });
    assert.equal(login.status, 403);
  });

  it('the CLI’s account, token and app commands refuse before opening anything, with the same message', async () => {
    const env = { DATA_DIR: scratchDir(), MASTODON_DATABASE_URL: db.url };
    for (const args of [
      ['account', 'show', 'bob'],
      ['token', 'create', 'bob', '--scopes', 'read'],
      ['app', 'list'],
    ]) {
      const result = await runCli(args, env);
      assert.deepEqual([result.code, result.stdout, result.stderr], [1, '', `error: ${MASTODON_OWNS_ACCOUNTS}\n`], args.join(' '));
    }
  });
});
