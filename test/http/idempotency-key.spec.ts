import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventStoreUnavailableError, type EventStore } from '../../src/events/event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { TestServer, type TestAccount } from '../support/test-server.ts';
import { InProcessBus } from '../support/in-process-bus.ts';

/** Wraps the service's event store: while `loseAnswers` is on, an append (joint or not) is stored but answered with a timeout. */
function losingAnswers(inner: EventStore) {
  const control = { loseAnswers: false };
  const lost = async <T>(append: Promise<T>): Promise<T> => {
    const result = await append;
    if (control.loseAnswers) throw new EventStoreUnavailableError('deadline exceeded after the append was written');
    return result;
  };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'appendToStream') return (...args: Parameters<EventStore['appendToStream']>) => lost(target.appendToStream(...args));
      if (property === 'appendWith' && target.appendWith) {
        return (...args: Parameters<NonNullable<EventStore['appendWith']>>) => lost(target.appendWith!(...args));
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, control };
}

const newFilter = { title: 'retried', context: ['home'], filter_action: 'warn', keywords_attributes: [{ keyword: 'once' }] };

// Issue 23, defect 4: a client retrying a POST with the same Idempotency-Key never creates a second record,
// whichever log the service writes to.
for (const log of ['SQLite', 'EventStoreDB protocol stand-in (not a server)'] as const) {
  describe(`Idempotency-Key on POST (Mastodon: per account, kept an hour, a repeat answers the first record), log in ${log}`, function () {
    this.timeout(30_000);
    let standIn: EsdbStandIn | null = null;
    let server: TestServer;
    let events: EventStore;
    let control: { loseAnswers: boolean };
    let alice: TestAccount;
    let bob: TestAccount;

    before(async () => {
      if (log !== 'SQLite') standIn = await EsdbStandIn.start('BatchAppend');
      server = await TestServer.start(standIn ? { EVENTSTORE_URL: standIn.url } : {}, new InProcessBus(), (stores) => {
        const losing = losingAnswers(stores.events);
        control = losing.control;
        events = stores.events;
        return { ...stores, events: losing.store };
      });
    });
    after(async () => {
      await server?.close();
      await standIn?.stop();
    });
    beforeEach(async () => {
      control.loseAnswers = false;
      alice = await server.account();
      bob = await server.account();
    });

    const post = (account: TestAccount, path: string, json: unknown, key?: string) =>
      server.request('POST', path, { token: account.token, json, ...(key ? { headers: { 'Idempotency-Key': key } } : {}) });
    const titles = async (account: TestAccount) =>
      ((await server.request('GET', '/api/v2/filters', { token: account.token })).body as { id: string }[]).map((f) => f.id);

    it('answers a repeated key with the filter the first request created, and creates no second one', async () => {
      const key = randomUUID();
      const first = await post(alice, '/api/v2/filters', newFilter, key);
      const again = await post(alice, '/api/v2/filters', { ...newFilter, title: 'changed my mind' }, key);
      assert.equal(first.status, 200);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(await titles(alice), [first.body.id]);
    });

    it('creates one filter per request without a key, and per distinct key', async () => {
      await post(alice, '/api/v2/filters', newFilter);
      await post(alice, '/api/v2/filters', newFilter);
      await post(alice, '/api/v2/filters', newFilter, randomUUID());
      await post(alice, '/api/v2/filters', newFilter, randomUUID());
      assert.equal((await titles(alice)).length, 4);
    });

    it("keeps keys per account: another account's same key creates its own filter", async () => {
      const key = randomUUID();
      const mine = await post(alice, '/api/v2/filters', newFilter, key);
      const theirs = await post(bob, '/api/v2/filters', newFilter, key);
      assert.notEqual(theirs.body.id, mine.body.id);
      assert.deepEqual(await titles(bob), [theirs.body.id]);
    });

    it('after a timeout (503) whose append was in fact stored, the retry answers 200 with that filter and writes nothing', async () => {
      const key = randomUUID();
      control.loseAnswers = true;
      const lost = await post(alice, '/api/v2/filters', newFilter, key);
      control.loseAnswers = false;
      assert.equal(lost.status, 503);
      const retried = await post(alice, '/api/v2/filters', newFilter, key);
      assert.equal(retried.status, 200);
      assert.deepEqual(await titles(alice), [retried.body.id]);
      const stored = await events.readStream(filterStream(retried.body.id));
      assert.deepEqual(
        stored.map((e) => e.type),
        ['FilterCreated', 'KeywordsUpdated'],
      );
    });

    it('gives two identical requests sent at once one filter, and both the same answer', async () => {
      const key = randomUUID();
      const answers = await Promise.all([post(alice, '/api/v2/filters', newFilter, key), post(alice, '/api/v2/filters', newFilter, key)]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200],
      );
      assert.equal(answers[0].body.id, answers[1].body.id);
      assert.deepEqual(await titles(alice), [answers[0].body.id]);
    });

    it('holds for v1 filters, v2 keywords and v2 statuses too', async () => {
      const v1Key = randomUUID();
      const v1 = await post(alice, '/api/v1/filters', { phrase: 'legacy', context: ['home'] }, v1Key);
      assert.deepEqual((await post(alice, '/api/v1/filters', { phrase: 'legacy', context: ['home'] }, v1Key)).body, v1.body);
      assert.equal((await server.request('GET', '/api/v1/filters', { token: alice.token })).body.length, 1);

      const filterId = (await post(alice, '/api/v2/filters', { title: 'host', context: ['home'] })).body.id as string;
      const keywordKey = randomUUID();
      const keyword = await post(alice, `/api/v2/filters/${filterId}/keywords`, { keyword: 'k' }, keywordKey);
      control.loseAnswers = true;
      assert.equal((await post(alice, `/api/v2/filters/${filterId}/statuses`, { status_id: '42' }, 'status-key')).status, 503);
      control.loseAnswers = false;
      const status = await post(alice, `/api/v2/filters/${filterId}/statuses`, { status_id: '42' }, 'status-key');
      assert.equal(status.status, 200);
      assert.deepEqual((await post(alice, `/api/v2/filters/${filterId}/keywords`, { keyword: 'k' }, keywordKey)).body, keyword.body);
      const filter = (await server.request('GET', `/api/v2/filters/${filterId}`, { token: alice.token })).body;
      assert.deepEqual(
        filter.keywords.map((k: { id: string }) => k.id),
        [keyword.body.id],
      );
      assert.deepEqual(
        filter.statuses.map((s: { id: string }) => s.id),
        [status.body.id],
      );
    });

    it('answers a repeated key 404 once the filter it created is deleted, as Mastodon cannot find the record', async () => {
      const key = randomUUID();
      const first = await post(alice, '/api/v2/filters', newFilter, key);
      assert.equal((await server.request('DELETE', `/api/v2/filters/${first.body.id}`, { token: alice.token })).status, 200);
      const again = await post(alice, '/api/v2/filters', newFilter, key);
      assert.equal(again.status, 404);
      assert.deepEqual(await titles(alice), []);
    });
  });
}
