import assert from 'node:assert/strict';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { appRevokes, appSignIn, cli, eventLines, newPassword, Secrets, webmailLogin, type EventLine } from '../support/account-story.ts';
import { TestServer } from '../support/test-server.ts';

let usernames = 0;

/**
 * The account's whole story (issue 20): every CLI action and every sign-in path, through the real
 * service and the real CLI processes, read back with `events --account`. On SQLite, and on the
 * EventStoreDB adapter talking to the gRPC protocol STAND-IN (test/support/esdb-stand-in.ts), not a server.
 */
for (const store of ['SQLite', 'the EventStoreDB stand-in'] as const) {
  describe(`An account's story in the log (${store})`, function () {
    this.timeout(120_000);
    let standIn: EsdbStandIn | null = null;
    let server: TestServer;
    let env: Record<string, string>;

    before(async () => {
      standIn = store === 'SQLite' ? null : await EsdbStandIn.start();
      const eventStore: Record<string, string> = standIn ? { EVENTSTORE_URL: standIn.url } : {};
      server = await TestServer.start(eventStore);
      env = { DATA_DIR: server.service.stores.dataDir, ...eventStore };
    });
    after(async () => {
      await server?.close();
      await standIn?.stop();
    });

    it("moves the projector and the announcer past another process's account facts, announcing nothing", async () => {
      usernames += 1;
      const username = `quiet${process.pid}_${usernames}`;
      const heard = server.listen();
      await cli(env, ['account', 'create', username]);
      await cli(env, ['token', 'create', username]);
      // The log now ends with the CLI's facts: the projector must hear of them to move its checkpoint there.
      await server.announcementsSettled();
      assert.deepEqual(heard, []);
    });

    it('records each CLI action and sign-in once, with its actor and no secret, in time order with the filter events', async () => {
      const secrets = new Secrets();
      usernames += 1;
      const username = `story${process.pid}_${usernames}`;
      const heard = server.listen();
      const firstPassword = secrets.password(newPassword());
      const accountId = (await cli(env, ['account', 'create', username, '--password-stdin'], `${firstPassword}\n`)).trim();
      const password = secrets.password(newPassword());
      await cli(env, ['account', 'password', username], `${password}\n`);
      const cliToken = secrets.token((await cli(env, ['token', 'create', username])).trim());
      const filter = await server.request('POST', '/api/v2/filters', { token: cliToken, json: { title: 'story', context: ['home'] } });
      assert.equal(filter.status, 200);
      await cli(env, ['token', 'revoke', cliToken]);
      const first = await appSignIn(server, secrets, { username, password });
      await appRevokes(server, first.app, first.token);
      const second = await appSignIn(server, secrets, { username, password });
      await cli(env, ['app', 'revoke', second.app.id]);
      const wrong = secrets.password(newPassword());
      assert.equal(await webmailLogin(server, username, wrong), 401);
      assert.equal(await webmailLogin(server, username, password), 302);
      const operatorToken = secrets.token((await cli(env, ['token', 'create', username])).trim());
      assert.equal((await server.request('PUT', `/api/v2/filters/${filter.body.id}`, { token: operatorToken, json: { title: 'told' } })).status, 200);

      const story = eventLines(await cli(env, ['events', '--account', username]));
      assert.deepEqual(
        story.map((e) => e.type),
        [
          'AccountCreated',
          'PasswordChanged',
          'TokenIssued',
          'FilterCreated',
          'TokenRevoked',
          'AppAuthorized',
          'TokenIssued',
          'TokenRevoked',
          'AppAuthorized',
          'TokenIssued',
          'TokenRevoked',
          'WebmailSignInFailed',
          'WebmailSignInSucceeded',
          'TokenIssued',
          'FilterUpdated',
        ],
      );
      const positions = story.map((e) => BigInt(e.position));
      assert.ok(
        positions.every((p, i) => i === 0 || p > positions[i - 1]!),
        'in log order',
      );
      const facts = story.filter((e) => e.stream === `account-${accountId}`);
      assert.equal(facts.length, 13);
      const [cliId, firstId, secondId, operatorId] = [cliToken, first.token, second.token, operatorToken].map((t) => t.split('_')[0]!);
      const app = (a: { id: string; client_id: string }) => ({ kind: 'app', appId: a.id, clientId: a.client_id });
      const operator = { kind: 'operator' };
      const user = { kind: 'user', accountId };
      const who = (e: EventLine) => [e.type, e.data.tokenId ?? null, e.data.actor];
      assert.deepEqual(facts.map(who), [
        ['AccountCreated', null, operator],
        ['PasswordChanged', null, operator],
        ['TokenIssued', cliId, operator],
        ['TokenRevoked', cliId, operator],
        ['AppAuthorized', null, user],
        ['TokenIssued', firstId, app(first.app)],
        ['TokenRevoked', firstId, app(first.app)],
        ['AppAuthorized', null, user],
        ['TokenIssued', secondId, app(second.app)],
        ['TokenRevoked', secondId, operator],
        ['WebmailSignInFailed', null, { kind: 'anonymous' }],
        ['WebmailSignInSucceeded', null, user],
        ['TokenIssued', operatorId, operator],
      ]);
      assert.equal(facts[0]!.data.username, username);
      assert.equal(facts[0]!.data.withPassword, true);
      assert.equal(facts[9]!.data.appRevoked, second.app.id);
      assert.deepEqual([facts[5]!.data.appId, facts[5]!.data.scopes], [first.app.id, ['read', 'write']]);
      assert.equal(facts[11]!.data.clientAddress, '127.0.0.1');
      for (const fact of facts) {
        assert.equal(fact.data.accountId, accountId);
        assert.equal(fact.metadata.accountId, accountId);
        assert.equal(fact.metadata.schemaVersion, 1);
        assert.match(String(fact.metadata.requestId), /^[\w.:@/+=-]+$/);
        assert.ok(['cli', 'oauth', 'webmail'].includes(String(fact.metadata.source)));
      }
      assert.equal(new Set(facts.map((f) => f.metadata.requestId)).size, facts.length, 'each fact its own request');

      const whole = await cli(env, ['events']);
      assert.equal(eventLines(whole).filter((e) => e.stream === `account-${accountId}`).length, 13, 'the whole log shows them too');
      secrets.assertNoneIn(whole);
      const stored = await server.service.stores.events.readStream(`account-${accountId}`);
      secrets.assertNoneIn(JSON.stringify(stored, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
      const passwordHash = await server.service.stores.accounts.passwordHash(accountId);
      assert.ok(passwordHash && !whole.includes(passwordHash));

      // The projector took in no account fact: one announcement per filter commit, none for the rest.
      await server.announcementsSettled();
      assert.deepEqual(heard, [`timeline.${accountId} {"event":"filters_changed"}`, `timeline.${accountId} {"event":"filters_changed"}`]);
      const listed = await server.request('GET', '/api/v2/filters', { token: operatorToken });
      assert.deepEqual(
        listed.body.map((f: { id: string; title: string }) => [f.id, f.title]),
        [[filter.body.id, 'told']],
      );

      const tokens = eventLines(await cli(env, ['token', 'list', username])) as unknown as { tokenId: string; revokedBy: unknown }[];
      assert.deepEqual(
        tokens.map((t) => [t.tokenId, t.revokedBy]),
        [
          [cliId, operator],
          [firstId, app(first.app)],
          [secondId, operator],
          [operatorId, null],
        ],
      );
    });
  });
}
