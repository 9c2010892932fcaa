import assert from 'node:assert/strict';
import { accountEventsStream, accountIdOfEventsStream, readAccountEvent, type AccountEvent } from '../../src/accounts/account-events.ts';
import { AccountLog, AccountLogError } from '../../src/accounts/account-log.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { eventHistory, readWholeLog } from '../../src/events/event-history.ts';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/events/event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { announcementsIn } from '../../src/projections/announcer/announcements-in.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const now = '2026-11-26T10:00:00.000Z';
const created = (filterId: string, accountId: string): NewEvent => ({
  type: 'FilterCreated',
  data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
  metadata: { accountId, requestId: 'r', commitIndex: 0, commitSize: 1, schemaVersion: 1 },
});
const issued = (accountId: string, tokenId = newId()): AccountEvent => ({
  type: 'TokenIssued',
  data: { accountId, tokenId, scopes: ['read'], appId: null, issuedAt: now, actor: { kind: 'operator' } },
});
const signedIn = (accountId: string): AccountEvent => ({
  type: 'WebmailSignInSucceeded',
  data: { accountId, username: 'alice', clientAddress: '127.0.0.1', at: now, actor: { kind: 'user', accountId } },
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('Account events: streams and reading', () => {
  it('names the account stream account-<id> and knows only digit ids as an account', () => {
    assert.equal(accountEventsStream('123'), 'account-123');
    assert.equal(accountIdOfEventsStream('account-123'), '123');
    for (const other of ['account-', 'account-abc', 'account-1-2', 'filteraccount-1', 'filter-1', 'accounts-1', '$ce-account']) {
      assert.equal(accountIdOfEventsStream(other), null, other);
    }
  });

  it('reads a known fact and skips an unknown type or a newer schema version', () => {
    const fact = signedIn('1');
    assert.deepEqual(readAccountEvent({ ...fact, metadata: { schemaVersion: 1 } }), fact);
    assert.deepEqual(readAccountEvent({ ...fact, metadata: {} }), fact);
    assert.equal(readAccountEvent({ ...fact, metadata: { schemaVersion: 2 } }), null);
    assert.equal(readAccountEvent({ type: 'AccountRenamed', data: {}, metadata: {} }), null);
    assert.equal(readAccountEvent({ type: 'toString', data: {}, metadata: {} }), null);
  });

  it('asks the announcer for nothing: an account fact is no filter change', () => {
    const fact: RecordedEvent = {
      eventId: 'e',
      streamName: 'account-1',
      revision: 0n,
      position: 1n,
      type: 'TokenIssued',
      data: issued('1').data,
      metadata: { accountId: '1', requestId: 'r', source: 'cli', commitIndex: 0, commitSize: 1, schemaVersion: 1 },
      recordedAt: now,
    };
    assert.deepEqual(announcementsIn([fact]), []);
  });

  it('fails with AccountLogError naming the fact when the event store refuses the append', async () => {
    const refusing = { appendToStream: () => Promise.reject(new Error('disk full')) } as unknown as EventStore;
    await assert.rejects(new AccountLog(refusing).record(issued('7'), { requestId: 'r', source: 'cli' }), (error: Error) => {
      assert.ok(error instanceof AccountLogError);
      assert.match(error.message, /could not record TokenIssued for account 7: disk full/);
      return true;
    });
  });
});

for (const kind of ['SQLite', 'EventStoreDB stand-in'] as const) {
  describe(`Account events on the ${kind} event store${kind === 'SQLite' ? '' : ' (protocol stand-in, not a server)'}`, function () {
    this.timeout(30_000);
    let standIn: EsdbStandIn | null = null;
    let dir: string;
    let store: SqliteEventStore | EsdbEventStore;
    /** Another process's connection to the same log. */
    const connect = () => (standIn ? EsdbEventStore.connect(standIn.url) : SqliteEventStore.inDataDir(dir));
    beforeEach(async () => {
      standIn = kind === 'SQLite' ? null : await EsdbStandIn.start();
      dir = scratchDir();
      store = connect();
    });
    afterEach(async () => {
      await store.close();
      await standIn?.stop();
    });

    it('records a fact once in account-<id> with its metadata, however often the same fact is appended', async () => {
      const alice = newId();
      const log = new AccountLog(store);
      const fact = issued(alice);
      await log.record(fact, { requestId: 'req-1', source: 'cli' });
      await log.record(fact, { requestId: 'req-2', source: 'cli' });
      await log.record(signedIn(alice), { requestId: 'req-3', source: 'webmail' });
      await log.record(signedIn(alice), { requestId: 'req-3', source: 'webmail' });
      await log.record(signedIn(alice), { requestId: 'req-4', source: 'webmail' });
      const stream = await store.readStream(accountEventsStream(alice));
      assert.deepEqual(
        stream.map((e) => [e.type, (e.metadata as { requestId: string }).requestId]),
        [
          ['TokenIssued', 'req-1'],
          ['WebmailSignInSucceeded', 'req-3'],
          ['WebmailSignInSucceeded', 'req-4'],
        ],
      );
      assert.deepEqual(stream[0]!.data, fact.data);
      assert.deepEqual(stream[0]!.metadata, { accountId: alice, requestId: 'req-1', source: 'cli', commitIndex: 0, commitSize: 1, schemaVersion: 1 });
    });

    it("tells an account's story with its filters' events in log order, without another account's, in the whole log too", async () => {
      const [alice, bob] = [newId(), newId()];
      const [mine, bobs] = [newId(), newId()];
      const log = new AccountLog(store);
      const context = { requestId: 'r', source: 'cli' } as const;
      await log.record(issued(alice), context);
      await store.appendToStream(filterStream(mine), [created(mine, alice)], 'no_stream');
      await log.record(issued(bob), context);
      await store.appendToStream(filterStream(bobs), [created(bobs, bob)], 'no_stream');
      await log.record(signedIn(alice), context);
      const expected = [accountEventsStream(alice), filterStream(mine), accountEventsStream(alice)];
      assert.deepEqual(
        (await store.readAccountEvents(alice)).map((e) => e.streamName),
        expected,
      );
      assert.deepEqual(
        (await collect(eventHistory(store, { accountId: alice }))).map((e) => e.streamName),
        expected,
      );
      const whole = (await collect(readWholeLog(store))).map((e) => e.streamName);
      assert.deepEqual(
        whole.filter((s) => s.startsWith('account-')),
        [accountEventsStream(alice), accountEventsStream(bob), accountEventsStream(alice)],
      );
    });

    it("wakes a projector with another connection's account fact, and its checkpoint moves past it", async () => {
      const reads = SqliteReadStore.inDataDir(dir);
      const other = connect();
      // No re-check on a timer within the test's time: only the append's wake-up brings the projector on.
      const projector = new FilterProjector(store, reads, { idleRecheckMs: 10 * 60_000 });
      await projector.start();
      try {
        await new AccountLog(other).record(issued(newId()), { requestId: 'r', source: 'cli' });
        const [fact] = (await collect(readWholeLog(other))).slice(-1);
        assert.equal(await projector.waitFor(fact!.position, 20_000), true, "woken by the other connection's account fact");
        assert.equal(await reads.checkpoint(FILTERS_PROJECTION), fact!.position);
      } finally {
        await projector.stop();
        await Promise.all([reads.close(), other.close()]);
      }
    });

    it("finds an account's facts through the whole log where no index answers, and never a foreign account-... stream", async () => {
      const alice = newId();
      await new AccountLog(store).record(signedIn(alice), { requestId: 'r', source: 'webmail' });
      // Another application's stream on a shared server (or a hand-written row) that only looks like ours.
      await store.appendToStream('account-bob', [{ type: 'Opened', data: {}, metadata: {} }], 'any');
      const unindexed = { readAll: store.readAll.bind(store), readStream: store.readStream.bind(store) } as EventStore;
      assert.deepEqual(
        (await collect(eventHistory(unindexed, { accountId: alice }))).map((e) => e.type),
        ['WebmailSignInSucceeded'],
      );
      if (standIn) assert.ok((await collect(readWholeLog(store))).every((e) => e.streamName !== 'account-bob'));
    });
  });
}
