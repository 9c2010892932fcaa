import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { AccountSignInThrottle, ACCOUNT_SIGN_IN_LIMIT, ACCOUNT_SIGN_IN_PERIOD_SECONDS } from '../../src/oauth/sign-in-throttle.ts';
import { openRateLimitStore } from '../../src/rate-limits/open-rate-limit-store.ts';
import { accountWithPassword, approve, CALLBACK, consentForm, registerApp, submitConsent } from '../support/oauth-flow.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const from = (address: string) => ({ 'x-forwarded-for': address });
const unknownName = () => `nobody${randomBytes(6).toString('hex')}`;

describe('OAuth sign-in: throttled per account name as Mastodon, never locked, never telling who exists', function () {
  this.timeout(120_000);
  // The account budget lives in hourly windows: a test that straddles an hour's end starts again.
  this.retries(1);
  let server: TestServer;
  let query: Record<string, string>;
  before(async () => {
    server = await TestServer.start({ RATE_LIMITS: 'on', TRUST_PROXY: '1' });
    const app = await registerApp(server);
    query = { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read' };
  });
  after(() => server.close());

  it("lets the owner sign in from another address after a stranger's wrong passwords from one address, from many, and in the webmail", async () => {
    const owner = await accountWithPassword(server);
    const wrong = { username: owner.username, password: 'not the password' };
    // Each well past the old lock (3 a minute), together under the account's budget (25 an hour).
    const fromOne = await Promise.all(Array.from({ length: 8 }, () => approve(server, query, wrong, 'approve', from('198.51.100.7'))));
    const fromMany = await Promise.all(Array.from({ length: 8 }, (_, i) => approve(server, query, wrong, 'approve', from(`203.0.113.${i + 1}`))));
    assert.deepEqual(
      [...fromOne, ...fromMany].map((a) => a.status),
      Array(16).fill(401),
    );
    // The webmail keeps Roundcube's lock (WEBMAIL_LOGIN_RATE_LIMIT, 3), on its own counter.
    const stranger = new WebmailClient(`${server.url}`);
    for (let i = 0; i < 3; i += 1) assert.equal((await stranger.login(owner.username, 'not the password')).status, 401);
    const webmail = await new WebmailClient(`${server.url}`).login(owner.username, owner.password);
    assert.match(webmail.text, /Too many failed login attempts/);
    assert.equal((await approve(server, query, owner, 'approve', from('192.0.2.50'))).status, 302);
  });

  it('answers an unknown name and an existing one byte for byte alike, attempt after attempt (the 4th once said "locked")', async () => {
    const owner = await accountWithPassword(server);
    const unknown = unknownName();
    const form = await consentForm(server, query);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const answers = await Promise.all(
        [owner.username, unknown].map(async (username) => {
          const answer = await submitConsent(server, form, { username, password: 'not the password' }, 'approve', from(`198.51.100.${attempt}`));
          const body = (await answer.text()).replaceAll(username, '{name}');
          return { status: answer.status, type: answer.headers.get('content-type'), body };
        }),
      );
      assert.equal(answers[0]!.status, 401);
      assert.deepEqual(answers[0], answers[1], `attempt ${attempt}`);
      assert.match(answers[0]!.body, /Invalid username or password\./);
    }
  });

  it("past 25 attempts in the hour for a name (Mastodon's throttle_login_attempts/email, rack_attack.rb) answers 429 for it, known or unknown alike, right password or not", async () => {
    const [owner, other] = [await accountWithPassword(server), await accountWithPassword(server)];
    const unknown = unknownName();
    for (const username of [owner.username, unknown]) {
      const spent = await Promise.all(
        Array.from({ length: ACCOUNT_SIGN_IN_LIMIT }, (_, i) => approve(server, query, { username, password: 'guess' }, 'approve', from(`10.7.${i}.1`))),
      );
      assert.deepEqual(
        spent.map((a) => a.status),
        Array(ACCOUNT_SIGN_IN_LIMIT).fill(401),
      );
    }
    const refused = await Promise.all(
      [owner, { username: unknown.toUpperCase(), password: 'guess' }].map(async (account) => {
        const answer = await approve(server, query, account, 'approve', from('10.8.0.1'));
        return { status: answer.status, limit: answer.headers.get('x-ratelimit-limit'), body: await answer.text() };
      }),
    );
    assert.deepEqual(refused[0], { status: 429, limit: '25', body: '{"error":"Too many requests"}' });
    assert.deepEqual(refused[1], refused[0]);
    // Another name has its own budget.
    assert.equal((await approve(server, query, other, 'approve', from('10.8.0.1'))).status, 302);
  });

  it('counts a name however it is spelt, and gives the budget back in the next hour', async () => {
    const store = await openRateLimitStore({ dataDir: scratchDir() });
    try {
      const throttle = new AccountSignInThrottle(store);
      const hour = ACCOUNT_SIGN_IN_PERIOD_SECONDS * 1000;
      const start = Math.ceil(Date.now() / hour) * hour;
      for (let i = 0; i < ACCOUNT_SIGN_IN_LIMIT; i += 1) {
        assert.deepEqual(await throttle.attempt(i % 2 ? ' Bob ' : 'bob', start + i), { allowed: true });
      }
      assert.deepEqual(await throttle.attempt('BOB', start + hour - 1), { allowed: false, limit: ACCOUNT_SIGN_IN_LIMIT, resetAtMs: start + hour });
      assert.deepEqual(await throttle.attempt('alice', start + hour - 1), { allowed: true });
      assert.deepEqual(await throttle.attempt('bob', start + hour), { allowed: true });
    } finally {
      await store.close();
    }
  });
});
