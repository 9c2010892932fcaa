import assert from 'node:assert/strict';
import { accountEventsStream } from '../../src/accounts/account-events.ts';
import { EventStoreUnavailableError, type EventStore } from '../../src/events/event-store.ts';
import type { Stores } from '../../src/composition-root.ts';
import { cli, eventLines, newPassword, webmailLogin } from '../support/account-story.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { accountWithPassword, approve, CALLBACK, codeOf, exchangeCode, registerApp } from '../support/oauth-flow.ts';
import { runCli } from '../support/run-cli.ts';
import { TestServer } from '../support/test-server.ts';

/** The event store, refusing appends to account streams while `refusing()` says so (an outage of the log). */
function refusingAccountFacts(events: EventStore, refusing: () => boolean): EventStore {
  return new Proxy(events, {
    get(target, property) {
      if (property === 'appendToStream') {
        return (stream: string, ...rest: [never, never]) =>
          refusing() && stream.startsWith('account-')
            ? Promise.reject(new EventStoreUnavailableError('event store (test): refused'))
            : target.appendToStream(stream, ...rest);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('Account facts when the log refuses them: nothing acknowledged goes unrecorded', function () {
  this.timeout(120_000);
  let server: TestServer;
  let refusing = false;

  before(async () => {
    server = await TestServer.start({}, new InProcessBus(), (stores: Stores) => ({ ...stores, events: refusingAccountFacts(stores.events, () => refusing) }));
  });
  afterEach(() => {
    refusing = false;
  });
  after(() => server?.close());

  const facts = async (accountId: string) => (await server.service.stores.events.readStream(accountEventsStream(accountId))).map((e) => e.type);

  it('answers a code exchange 503 and revokes the token it never showed', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    const code = codeOf(await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read' }, user));
    refusing = true;
    const answer = await exchangeCode(server, app, code);
    assert.equal(answer.status, 503);
    assert.equal(answer.body.access_token, undefined);
    assert.match(answer.body.error, /event log/);
    const issued = (await server.service.stores.accounts.listTokens(user.id)).filter((t) => t.tokenId !== user.token.split('_')[0]);
    assert.equal(issued.length, 1);
    assert.notEqual(issued[0]!.revokedAt, null, 'the token no one saw is revoked');
    assert.deepEqual(await facts(user.id), ['AppAuthorized']);
  });

  it('hands out no code for an approval it cannot record', async () => {
    const [app, user] = [await registerApp(server), await accountWithPassword(server)];
    refusing = true;
    const answer = await approve(server, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read' }, user);
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('location'), null);
    assert.deepEqual(await facts(user.id), []);
  });

  it('signs nobody in to the webmail when the sign-in cannot be recorded', async () => {
    const user = await accountWithPassword(server);
    refusing = true;
    assert.equal(await webmailLogin(server, user.username, user.password), 500);
    refusing = false;
    assert.equal(await webmailLogin(server, user.username, user.password), 302);
    assert.deepEqual(await facts(user.id), ['WebmailSignInSucceeded']);
  });

  it('records only the failures the login lock counts, and nothing for a name that is no account', async () => {
    const user = await accountWithPassword(server);
    for (let i = 0; i < 5; i += 1) assert.equal(await webmailLogin(server, user.username, newPassword()), 401);
    // WEBMAIL_LOGIN_RATE_LIMIT is 3: the fourth and fifth tries were refused by the lock, unrecorded.
    assert.deepEqual(await facts(user.id), ['WebmailSignInFailed', 'WebmailSignInFailed', 'WebmailSignInFailed']);
    const before = (await server.service.stores.events.readAll({ after: null, limit: 100_000 })).length;
    assert.equal(await webmailLogin(server, `nobody${process.pid}`, newPassword()), 401);
    assert.equal((await server.service.stores.events.readAll({ after: null, limit: 100_000 })).length, before);
  });
});

// The CLI as its own process, on the EventStoreDB adapter: the gRPC protocol STAND-IN (not a server)
// refuses writes the way a node that is not ready does.
describe('CLI account facts when the log refuses them (EventStoreDB protocol stand-in, not a server)', function () {
  this.timeout(120_000);
  let standIn: EsdbStandIn;
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    standIn = await EsdbStandIn.start();
    server = await TestServer.start({ EVENTSTORE_URL: standIn.url });
    env = { DATA_DIR: server.service.stores.dataDir, EVENTSTORE_URL: standIn.url };
  });
  afterEach(() => {
    standIn.gate.refuse = null;
  });
  after(async () => {
    await server?.close();
    await standIn?.stop();
  });

  it('prints no token it could not record, revokes it, and says so in one error line', async () => {
    const username = `refused${process.pid}`;
    await cli(env, ['account', 'create', username]);
    standIn.gate.refuse = 'not_ready';
    const made = await runCli(['token', 'create', username], env);
    const password = await runCli(['account', 'password', username], env, `${newPassword()}\n`);
    standIn.gate.refuse = null;
    assert.equal(made.code, 1);
    assert.equal(made.stdout, '');
    assert.match(
      made.stderr,
      /^error: token \d+ was made, but the event log could not record TokenIssued for account \d+: .*; it was revoked again and not printed\n$/,
    );
    assert.equal(password.code, 1);
    assert.match(password.stderr, new RegExp(`^error: the password of ${username} was set, but the event log could not record PasswordChanged .*\\n$`));
    const [token] = eventLines(await cli(env, ['token', 'list', username])) as unknown as { revokedAt: string | null; revokedBy: unknown }[];
    assert.notEqual(token!.revokedAt, null);
    assert.equal(token!.revokedBy, null, 'revoked unrecorded: by nobody the log knows');
    assert.deepEqual(
      eventLines(await cli(env, ['events', '--account', username])).map((e) => e.type),
      ['AccountCreated'],
    );
  });
});
