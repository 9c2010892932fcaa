import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DEVICE_COOKIE, mintDeviceCookie } from '../../src/oauth/device-cookie.ts';
import { AccountSignInThrottle, ACCOUNT_SIGN_IN_LIMIT, ACCOUNT_SIGN_IN_PERIOD_SECONDS, DEVICE_SIGN_IN_LIMIT } from '../../src/oauth/sign-in-throttle.ts';
import { openRateLimitStore } from '../../src/stores.ts';
import { accountWithPassword, approve, CALLBACK, consentForm, registerApp, submitConsent } from '../support/oauth-flow.ts';
import { pinnedClock } from '../support/pinned-clock.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const from = (address: string) => ({ 'x-forwarded-for': address });
const unknownName = () => `nobody${randomBytes(6).toString('hex')}`;
/** Addresses no other test uses, so the by-address throttle (25 per 5 minutes) never answers first. */
const addresses = () => {
  const [a, b] = randomBytes(2);
  return (i: number) => `172.${16 + (a! % 16)}.${b}.${i + 1}`;
};
type Credentials = { username: string; password: string };

/** The consent form submitted as a browser holding this device cookie (or none) would. */
async function withDevice(server: TestServer, query: Record<string, string>, account: Credentials, device: string | null, address: string) {
  const form = await consentForm(server, query, from(address));
  const cookie = device === null ? form.cookie : `${form.cookie}; ${DEVICE_COOKIE}=${device}`;
  return submitConsent(server, { ...form, cookie }, account, 'approve', from(address));
}

/** The device cookie an answer sets, attributes and all; null when it sets none. */
const deviceCookieOf = (answer: Response): string | null => answer.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`)) ?? null;
const valueOf = (setCookie: string): string => setCookie.split(';')[0]!.slice(DEVICE_COOKIE.length + 1);

/** A stranger's wrong passwords for the name from many addresses, until its budget is spent (25 an hour). */
async function spendNameBudget(server: TestServer, query: Record<string, string>, username: string): Promise<void> {
  const at = addresses();
  const answers = await Promise.all(
    Array.from({ length: ACCOUNT_SIGN_IN_LIMIT }, (_, i) => approve(server, query, { username, password: 'guess' }, 'approve', from(at(i)))),
  );
  assert.ok(
    answers.every((a) => a.status === 401 || a.status === 429),
    answers.map((a) => a.status).join(),
  );
  assert.equal((await approve(server, query, { username, password: 'guess' }, 'approve', from(at(100)))).status, 429);
}

describe('OAuth sign-in: throttled per account name as Mastodon, never locked, never telling who exists', function () {
  this.timeout(120_000);
  // The account budget lives in hourly windows: the service's clock is pinned, so no test straddles an hour's end.
  const clock = pinnedClock();
  let server: TestServer;
  let query: Record<string, string>;
  before(async () => {
    server = await TestServer.start({ RATE_LIMITS: 'on', TRUST_PROXY: '1' }, undefined, undefined, clock);
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
  it('counts on the clock it is given: the name and the device budgets come back at its hour, not the real one', async () => {
    const store = await openRateLimitStore({ dataDir: scratchDir() });
    try {
      const hour = ACCOUNT_SIGN_IN_PERIOD_SECONDS * 1000;
      let nowMs = clock() - 1000 + hour - 1;
      const throttle = new AccountSignInThrottle(store, { now: () => nowMs });
      for (let i = 0; i < ACCOUNT_SIGN_IN_LIMIT; i += 1) assert.deepEqual(await throttle.attempt('carol'), { allowed: true });
      for (let i = 0; i < DEVICE_SIGN_IN_LIMIT; i += 1) assert.deepEqual(await throttle.attemptFromDevice('nonce'), { allowed: true });
      const resetAtMs = nowMs + 1;
      assert.deepEqual(await throttle.attempt('carol'), { allowed: false, limit: ACCOUNT_SIGN_IN_LIMIT, resetAtMs });
      assert.deepEqual(await throttle.attemptFromDevice('nonce'), { allowed: false, limit: DEVICE_SIGN_IN_LIMIT, resetAtMs });
      nowMs += 1;
      assert.deepEqual(await throttle.attempt('carol'), { allowed: true });
      assert.deepEqual(await throttle.attemptFromDevice('nonce'), { allowed: true });
    } finally {
      await store.close();
    }
  });

  it("lets the owner's browser that signed in before (its device cookie) sign in from another address after a stranger spent the name's budget", async () => {
    const owner = await accountWithPassword(server);
    const at = addresses();
    const first = await withDevice(server, query, owner, null, at(0));
    assert.equal(first.status, 302);
    const setCookie = deviceCookieOf(first)!;
    assert.ok(setCookie, 'a successful sign-in sets the device cookie');
    assert.match(setCookie, /; path=\/oauth;/);
    assert.match(setCookie, /; httponly/);
    assert.match(setCookie, /; samesite=lax/);
    assert.doesNotMatch(setCookie, /; secure/);
    const expires = Date.parse(/; expires=([^;]+)/.exec(setCookie)![1]!);
    assert.ok(expires > Date.now() + 360 * 24 * 3600_000, setCookie);
    const device = valueOf(setCookie);
    // A wrong password with the cookie answers exactly as one without it.
    const wrong = { username: owner.username, password: 'not the password' };
    const form = await consentForm(server, query, from(at(1)));
    const answers = await Promise.all(
      [`${form.cookie}; ${DEVICE_COOKIE}=${device}`, form.cookie].map(async (cookie) => {
        const answer = await submitConsent(server, { ...form, cookie }, wrong, 'approve', from(at(1)));
        return { status: answer.status, type: answer.headers.get('content-type'), cookies: answer.headers.getSetCookie(), body: await answer.text() };
      }),
    );
    assert.equal(answers[0]!.status, 401);
    assert.deepEqual(answers[0], answers[1]);
    await spendNameBudget(server, query, owner.username);
    assert.equal((await withDevice(server, query, owner, null, at(10))).status, 429);
    const again = await withDevice(server, query, owner, device, at(11));
    assert.equal(again.status, 302);
    // Signed in again: the same device (its nonce and budget), the cookie renewed for another year.
    assert.equal(valueOf(deviceCookieOf(again)!), device);
  });

  it('marks the device cookie Secure when the request came over https (X-Forwarded-Proto from a trusted proxy)', async () => {
    const owner = await accountWithPassword(server);
    const headers = { ...from(addresses()(0)), 'x-forwarded-proto': 'https' };
    const answer = await submitConsent(server, await consentForm(server, query, headers), owner, 'approve', headers);
    assert.equal(answer.status, 302);
    assert.match(deviceCookieOf(answer)!, /; secure/);
  });

  it('gives no exemption to a forged or tampered device cookie, or to one for another name', async () => {
    const [owner, other] = [await accountWithPassword(server), await accountWithPassword(server)];
    const at = addresses();
    const device = valueOf(deviceCookieOf(await withDevice(server, query, owner, null, at(0)))!);
    const otherDevice = valueOf(deviceCookieOf(await withDevice(server, query, other, null, at(1)))!);
    await spendNameBudget(server, query, owner.username);
    const [version, name, nonce, mac] = device.split('.') as [string, string, string, string];
    const otherName = otherDevice.split('.')[1]!;
    const flipped = (text: string) => `${text.slice(0, 5)}${text[5] === 'A' ? 'B' : 'A'}${text.slice(6)}`;
    const refused = {
      'another name': otherDevice,
      'another key': mintDeviceCookie(randomBytes(32), owner.username),
      'the MAC changed': [version, name, nonce, flipped(mac)].join('.'),
      'the nonce changed': [version, name, flipped(nonce), mac].join('.'),
      "another name's MAC on this name": [version, name, nonce, otherDevice.split('.')[3]].join('.'),
      'this MAC on another name': [version, otherName, nonce, mac].join('.'),
      'the MAC cut': device.slice(0, -2),
      garbage: 'x'.repeat(5000),
    };
    for (const [what, cookie] of Object.entries(refused)) {
      assert.equal((await withDevice(server, query, owner, cookie, at(20))).status, 429, what);
    }
    assert.equal((await withDevice(server, query, owner, device, at(21))).status, 302);
  });

  it("counts attempts with a device cookie in the device's own budget (10 an hour), never in the name's", async () => {
    const owner = await accountWithPassword(server);
    const at = addresses();
    const device = valueOf(deviceCookieOf(await withDevice(server, query, owner, null, at(0)))!);
    const wrong = { username: owner.username, password: 'not the password' };
    const spent = await Promise.all(Array.from({ length: DEVICE_SIGN_IN_LIMIT }, (_, i) => withDevice(server, query, wrong, device, at(1 + i))));
    assert.deepEqual(
      spent.map((a) => a.status),
      Array(DEVICE_SIGN_IN_LIMIT).fill(401),
    );
    const past = await withDevice(server, query, owner, device, at(20));
    assert.deepEqual({ status: past.status, limit: past.headers.get('x-ratelimit-limit') }, { status: 429, limit: String(DEVICE_SIGN_IN_LIMIT) });
    // The name's budget has spent only the first sign-in: 24 more without the cookie, then 429.
    const name = await Promise.all(Array.from({ length: ACCOUNT_SIGN_IN_LIMIT - 1 }, (_, i) => withDevice(server, query, wrong, null, at(30 + i))));
    assert.deepEqual(
      name.map((a) => a.status),
      Array(ACCOUNT_SIGN_IN_LIMIT - 1).fill(401),
    );
    assert.equal((await withDevice(server, query, owner, null, at(60))).status, 429);
  });

  it('keeps the device-cookie key across a restart: a cookie from before it still exempts', async () => {
    const dataDir = scratchDir();
    const env = { RATE_LIMITS: 'on', TRUST_PROXY: '1', DATA_DIR: dataDir };
    const at = addresses();
    let first: TestServer | null = await TestServer.start(env, undefined, undefined, clock);
    let owner: Credentials;
    let device: string;
    try {
      const app = await registerApp(first);
      const q = { ...query, client_id: app.client_id };
      owner = await accountWithPassword(first);
      device = valueOf(deviceCookieOf(await withDevice(first, q, owner, null, at(0)))!);
      await first.close();
      first = null;
      const second = await TestServer.start(env, undefined, undefined, clock);
      try {
        await spendNameBudget(second, q, owner.username);
        assert.equal((await withDevice(second, q, owner, device, at(1))).status, 302);
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
    }
  });
});
