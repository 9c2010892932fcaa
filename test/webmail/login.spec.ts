import assert from 'node:assert/strict';
import { failedLoginLine, LOG_DATE, securityCheckLine } from '../support/log-lines.ts';
import { WebmailClient, tokenIn } from '../support/webmail-client.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const LOGIN = '/webmail/?_task=login&_action=login';

describe('webmail login (POST ?_task=login&_action=login)', () => {
  let server: WebmailServer;
  before(async () => {
    server = await startWebmailServer();
  });
  after(async () => {
    await server.close();
  });

  it('shows a login form with a 32-character token in an HttpOnly, SameSite=Lax session', async () => {
    const client = new WebmailClient(server.baseUrl);
    const page = await client.get('/webmail/');
    assert.equal(page.status, 200);
    assert.match(tokenIn(page.text), /^[0-9A-Za-z]{32}$/);
    assert.match(page.text, /<input id="rcmloginuser" name="_user"/);
    const cookie = page.headers.getSetCookie().find((line) => line.startsWith('roundcube_sessid='));
    assert.match(cookie ?? '', /^roundcube_sessid=[0-9a-v]{26}; path=\/webmail\/; samesite=lax; httponly$/);
    assert.equal(page.headers.get('x-frame-options'), 'sameorigin');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
    assert.match(page.headers.get('cache-control') ?? '', /no-cache, no-store/);
    assert.equal(page.headers.get('pragma'), 'no-cache');
  });

  it('logs in with the right password: a new session id and token, the auth cookie, and a log line', async () => {
    const alice = await server.account('alice');
    const client = new WebmailClient(server.baseUrl);
    const loginToken = await client.loginToken();
    const before = client.sessionId();
    const answer = await client.post(LOGIN, { _token: loginToken, _user: alice.username, _pass: alice.password });
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get('location'), '/webmail/?_task=mail&_mbox=INBOX');
    assert.notEqual(client.sessionId(), before);
    assert.match(client.cookies.get('roundcube_sessauth') ?? '', /^[0-9a-v]{26}$/);
    const mailbox = await client.get('/webmail/?_task=mail');
    assert.equal(mailbox.status, 200);
    const token = /data-request-token="([0-9A-Za-z]{32})"/.exec(mailbox.text)?.[1];
    assert.ok(token && token !== loginToken);
    assert.match(
      server.loginLines().at(-1)!,
      new RegExp(
        `^${LOG_DATE}<${client.sessionId().slice(0, 8)}> Successful login for ${alice.username} \\(ID: ${alice.id}\\) from 127\\.0\\.0\\.1 in session ${client.sessionId().slice(0, 16)}$`,
      ),
    );
  });

  it('accepts the full address as the username', async () => {
    const bob = await server.account('bob');
    const answer = await new WebmailClient(server.baseUrl).login(`${bob.username}@localhost`, bob.password);
    assert.equal(answer.status, 302);
  });

  for (const [name, token] of [
    ['a missing', undefined],
    ['a wrong', 'x'.repeat(32)],
  ] as const) {
    it(`refuses ${name} token with 401 "Invalid request!", logs the check failure and the failed login`, async () => {
      const carol = await server.account('carol');
      const client = new WebmailClient(server.baseUrl);
      await client.loginToken();
      const session = client.sessionId();
      const form: Record<string, string> = { _user: carol.username, _pass: carol.password };
      if (token) form._token = token;
      const answer = await client.post(LOGIN, form);
      assert.equal(answer.status, 401);
      assert.match(answer.text, /Invalid request! No data was saved\./);
      assert.match(server.errorLines().at(-1)!, securityCheckLine(session, 'POST', LOGIN, true));
      assert.match(server.loginLines().at(-1)!, failedLoginLine(carol.username, session, 1));
      assert.notEqual(client.sessionId(), session);
      assert.doesNotMatch((await client.get('/webmail/?_task=mail')).text, /id="messagelist"/);
    });
  }

  it('refuses a login POST from a browser that never got the login page (no session cookie)', async () => {
    const dave = await server.account('dave');
    const client = new WebmailClient(server.baseUrl);
    const answer = await client.post(LOGIN, { _token: 'A'.repeat(32), _user: dave.username, _pass: dave.password });
    assert.equal(answer.status, 401);
    assert.match(answer.text, /Invalid request! No data was saved\./);
    // The session the logs name is the one whose cookie this answer sets, and the only one it sets.
    const cookies = answer.headers.getSetCookie().filter((line) => line.startsWith('roundcube_sessid='));
    assert.equal(cookies.length, 1);
    const session = client.sessionId();
    assert.match(server.errorLines().at(-1)!, securityCheckLine(session, 'POST', LOGIN, true));
    assert.match(server.loginLines().at(-1)!, failedLoginLine(dave.username, session, 1));
    // That session shows the login form: its token logs in.
    assert.equal((await client.post(LOGIN, { _token: tokenIn(answer.text), _user: dave.username, _pass: dave.password })).status, 302);
  });

  it('pauses a second after a wrong password, as Roundcube does, while other requests are answered', async () => {
    const held: { ms: number; release: () => void }[] = [];
    let paused: () => void = () => {};
    const pausing = new Promise<void>((resolve) => (paused = resolve));
    const slow = await startWebmailServer({}, undefined, {
      pause: (ms) => new Promise<void>((release) => (held.push({ ms, release }), paused())),
    });
    try {
      const gina = await slow.account('gina');
      const guesser = new WebmailClient(slow.baseUrl);
      const token = await guesser.loginToken();
      let answered = false;
      const failing = guesser.post(LOGIN, { _token: token, _user: gina.username, _pass: 'guess' }).then((answer) => ((answered = true), answer));
      await pausing;
      assert.deepEqual(
        held.map((h) => h.ms),
        [1000],
      );
      // While that login waits, another visitor logs in, and nothing of the failure is answered or logged yet.
      assert.equal((await new WebmailClient(slow.baseUrl).login(gina.username, gina.password)).status, 302);
      assert.equal(answered, false);
      assert.equal(slow.loginLines().filter((line) => line.includes('Failed login')).length, 0);
      held[0]!.release();
      assert.equal((await failing).status, 401);
      assert.equal(slow.loginLines().filter((line) => line.includes('Failed login')).length, 1);
      // No pause for a refused request token: Roundcube sleeps only when the password check failed.
      const forged = new WebmailClient(slow.baseUrl);
      await forged.loginToken();
      assert.equal((await forged.post(LOGIN, { _token: 'x', _user: gina.username, _pass: 'guess' })).status, 401);
      assert.equal(held.length, 1);
    } finally {
      await slow.close();
    }
  });

  it('answers a wrong password or an unknown user with 401 "Login failed." and no errors.log line', async () => {
    const erin = await server.account('erin');
    const errorsBefore = server.errorLines().length;
    for (const [user, password] of [
      [erin.username, 'wrong'],
      ['nobody-here', 'x'],
      [erin.id, erin.password],
    ] as const) {
      const client = new WebmailClient(server.baseUrl);
      await client.loginToken();
      const session = client.sessionId();
      const answer = await client.post(LOGIN, { _token: tokenIn((await client.get('/webmail/')).text), _user: user, _pass: password });
      assert.equal(answer.status, 401, user);
      assert.match(answer.text, /Login failed\./);
      assert.match(server.loginLines().at(-1)!, /Failed login for .* \(error: 0\)$/);
      assert.notEqual(session, '');
    }
    assert.equal(server.errorLines().length, errorsBefore);
  });

  it('refuses every login of an account after 3 failures, the right password too', async () => {
    const frank = await server.account('frank');
    const client = new WebmailClient(server.baseUrl);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal((await client.login(frank.username, 'wrong')).status, 401);
    }
    const token = await client.loginToken();
    const session = client.sessionId();
    const locked = await client.post(LOGIN, { _token: token, _user: frank.username, _pass: frank.password });
    assert.equal(locked.status, 401);
    assert.match(locked.text, /Too many failed login attempts\. Try again later\./);
    assert.match(server.loginLines().at(-1)!, failedLoginLine(frank.username, session, 4));
    const other = await server.account('gina');
    assert.equal((await new WebmailClient(server.baseUrl).login(other.username, other.password)).status, 302);
  });

  it('answers an unknown name and an existing one byte for byte alike, locked after 3 failures both (Roundcube locks only users it knows)', async () => {
    const jack = await server.account('jack');
    // As long as jack's name, so that even Content-Length may not tell them apart.
    const unknown = 'q'.repeat(jack.username.length);
    // A failed login ends its session (Roundcube): each answer carries a fresh session id and token, the rest alike.
    const fresh = (text: string) => text.replace(/[0-9a-v]{26}/g, '{session}').replace(/value="[0-9A-Za-z]{32}"/g, 'value="{token}"');
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const answers = [];
      for (const user of [jack.username, unknown]) {
        const client = new WebmailClient(server.baseUrl);
        const answer = await client.post(LOGIN, { _token: await client.loginToken(), _user: user, _pass: 'wrong' });
        // The clock's headers may fall on two sides of a second; everything else must match.
        const headers = [...answer.headers]
          .filter(([name]) => !['date', 'expires', 'last-modified'].includes(name))
          .map(([name, value]) => [name, fresh(value)]);
        answers.push({ status: answer.status, headers, text: fresh(answer.text.replaceAll(user, '{user}')) });
      }
      assert.deepEqual(answers[0], answers[1], `attempt ${attempt}`);
      assert.match(answers[0]!.text, attempt === 4 ? /Too many failed login attempts\. Try again later\./ : /Login failed\./);
    }
  });

  it('signs in accounts whose password was set with the CLI hash', async () => {
    const hank = await server.account('hank', 'pass with spaces and ünïcode');
    assert.equal((await new WebmailClient(server.baseUrl).login(hank.username, 'pass with spaces and ünïcode')).status, 302);
  });

  it('keeps the token of a login page open in another tab valid', async () => {
    const ivy = await server.account('ivy');
    const client = new WebmailClient(server.baseUrl);
    const firstTab = await client.loginToken();
    assert.equal(await client.loginToken(), firstTab);
    assert.equal((await client.post(LOGIN, { _token: firstTab, _user: ivy.username, _pass: ivy.password })).status, 302);
  });
});
