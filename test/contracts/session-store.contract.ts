import assert from 'node:assert/strict';
import type { LocationFixture } from '../support/store-locations.ts';
import { HOSTILE_KEYS } from '../support/store-locations.ts';
import { sessionKey } from '../../src/webmail/sessions/session-key.ts';
import type { NewLogin, WebmailSession } from '../../src/webmail/sessions/session-store.ts';
import { storedSessionData } from '../support/stored-sessions.ts';
import { IDLE_MS, webmailStoresSubject } from './webmail-stores-fixture.ts';

/** The SessionStore port: Roundcube's database sessions, shared by every connection to the store. */
export function sessionStoreContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`SessionStore contract: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it('creates anonymous sessions with fresh ids and tokens, and finds them', async () => {
      const { sessions } = await subject.open();
      const a = await sessions.create(true);
      const b = await sessions.create(false);
      assert.match(a.id, /^[0-9a-v]{26}$/);
      assert.match(a.requestToken, /^[0-9A-Za-z]{32}$/);
      assert.notEqual(a.id, b.id);
      assert.deepEqual(await sessions.find(a.id), a);
      assert.deepEqual(
        { ...(await sessions.find(b.id)) },
        {
          id: b.id,
          requestToken: b.requestToken,
          loginPageShown: false,
          accountId: null,
          username: null,
          authSecretHash: null,
          mailSecret: null,
          lastComposeId: null,
        },
      );
    });

    it('forgets a session idle for the idle time, and each use restarts the timer', async () => {
      const { sessions } = await subject.open();
      const session = await sessions.create(true);
      subject.clock.now += IDLE_MS - 1;
      assert.notEqual(await sessions.find(session.id), null, 'used just in time');
      subject.clock.now += IDLE_MS - 1;
      assert.notEqual(await sessions.find(session.id), null, 'the use restarted the timer');
      subject.clock.now += IDLE_MS;
      assert.equal(await sessions.find(session.id), null, 'idle too long');
      subject.clock.now -= IDLE_MS;
      assert.equal(await sessions.find(session.id), null, 'and gone for good');
    });

    it('logs in under a new id, token and auth secret, ending the old session and its compose IDs', async () => {
      const { sessions, compose } = await subject.open();
      const anonymous = await sessions.create(true);
      const draft = await compose.open(anonymous.id, { to: '', cc: '', subject: '', body: '' });
      const session = await sessions.logIn(anonymous.id, '42', 'alice');
      assert.notEqual(session.id, anonymous.id);
      assert.notEqual(session.requestToken, anonymous.requestToken);
      assert.deepEqual([session.accountId, session.username, session.loginPageShown], ['42', 'alice', false]);
      assert.match(session.authSecret, /^[0-9a-v]{26}$/);
      assert.equal(session.authSecretHash, sessionKey(session.authSecret));
      assert.equal(await sessions.find(anonymous.id), null);
      assert.equal(await compose.find(anonymous.id, draft.id), null);
      assert.deepEqual(await sessions.find(session.id), withoutSecret(session));
      assert.equal(session.mailSecret, null, 'a local account needs no mail secret');
      const imap = await sessions.logIn((await sessions.create(true)).id, 'bob', 'bob', 'sealed.secret.value');
      assert.equal((await sessions.find(imap.id))?.mailSecret, 'sealed.secret.value');
    });

    it('remembers the login page and the last compose ID sent; destroy ends the session and its compose IDs', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.create(false);
      await sessions.markLoginPageShown(session.id);
      await sessions.rememberSentCompose(session.id, '123abc');
      assert.deepEqual([(await sessions.find(session.id))?.loginPageShown, (await sessions.find(session.id))?.lastComposeId], [true, '123abc']);
      const draft = await compose.open(session.id, { to: 'x', cc: '', subject: '', body: '' });
      await sessions.destroy(session.id);
      assert.equal(await sessions.find(session.id), null);
      assert.equal(await compose.find(session.id, draft.id), null);
      assert.equal(await compose.claim(session.id, draft.id), false);
    });

    it('shows every connection the same sessions at once', async () => {
      const [first, second] = [await subject.open(), await subject.open()];
      const session = await first.sessions.logIn((await first.sessions.create(true)).id, '7', 'bob');
      assert.deepEqual(await second.sessions.find(session.id), withoutSecret(session));
      await second.sessions.destroy(session.id);
      assert.equal(await first.sessions.find(session.id), null);
    });

    it('finds nothing for hostile ids and leaves the real sessions alone', async () => {
      const { sessions } = await subject.open();
      const session = await sessions.create(true);
      const operators = [{ $ne: null }, { $gt: '' }, ['x']] as unknown as string[];
      for (const key of [...HOSTILE_KEYS, ...operators]) {
        assert.equal(await sessions.find(key), null, JSON.stringify(key).slice(0, 20));
        await sessions.markLoginPageShown(key);
        await sessions.rememberSentCompose(key, key);
        await sessions.destroy(key);
      }
      assert.deepEqual(await sessions.find(session.id), session);
    });

    it('stores neither a session id nor an auth secret, only their SHA-256, compose IDs included', async () => {
      const { sessions, compose } = await subject.open();
      const session = await sessions.logIn((await sessions.create(true)).id, '42', 'alice');
      await compose.open(session.id, { to: 'x', cc: '', subject: '', body: '' });
      const stored = JSON.stringify(await storedSessionData(subject.location()));
      assert.ok(stored.includes(sessionKey(session.id)) && stored.includes(sessionKey(session.authSecret)), stored.slice(0, 400));
      assert.ok(!stored.includes(session.id), 'no session id');
      assert.ok(!stored.includes(session.authSecret), 'no auth secret');
      assert.equal(stored.split(sessionKey(session.id)).length - 1, 2, 'the session and its compose ID name the hash');
    });
  });
}

/** What `find` answers for a session just logged in: the same, without the secret only the login knows. */
function withoutSecret(login: NewLogin): WebmailSession {
  const { authSecret: _secret, ...session } = login;
  return session;
}
