import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { jsonEvent } from '@eventstore/db-client';
import { accountStream } from '../../src/events/esdb-account-index.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import type { NewEvent } from '../../src/events/event-store.ts';
import { eventHistory } from '../../src/events/event-history.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { filtersAsOf } from '../../src/projections/admin/filters-as-of.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';

const now = '2026-11-23T10:00:00.000Z';
const created = (filterId: string, accountId: string, title = 'spoilers'): NewEvent => ({
  type: 'FilterCreated',
  data: { filterId, accountId, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
  metadata: { accountId, commitIndex: 0, commitSize: 1, schemaVersion: 1 },
});
const renamed = (filterId: string, accountId: string, title: string): NewEvent => ({
  type: 'FilterUpdated',
  data: { filterId, title, context: ['home'], action: 'warn', expiresAt: null, updatedAt: now },
  metadata: { accountId, commitIndex: 0, commitSize: 1, schemaVersion: 1 },
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

// Per-account reads on the EventStoreDB adapter, against the gRPC protocol STAND-IN (not a server).
describe('EventStoreDB adapter: streams indexed by account (protocol stand-in, not a server)', function () {
  this.timeout(30_000);
  let standIn: EsdbStandIn;
  let store: EsdbEventStore;
  beforeEach(async () => {
    standIn = await EsdbStandIn.start();
    store = EsdbEventStore.connect(standIn.url);
  });
  afterEach(async () => {
    await store.close();
    await standIn.stop();
  });

  it('answers an account and its filters as of a position reading only its streams, not $all', async () => {
    const [alice, bob] = [newId(), newId()];
    const [first, second, bobs] = [newId(), newId(), newId()];
    // The one pass over $all that fills the index for a log older than it (see the last test): made
    // first, so what follows is found through the entries the appends write.
    await store.readAccountEvents(newId());
    await store.appendToStream(filterStream(first), [created(first, alice)], 'no_stream');
    await store.appendToStream(filterStream(bobs), [created(bobs, bob)], 'no_stream');
    const renamedAt = (await store.appendToStream(filterStream(first), [renamed(first, alice, 'renamed')], 0n)).position;
    await store.appendToStream(filterStream(second), [created(second, alice, 'second')], 'no_stream');
    standIn.otherApplication(500);
    const sentBefore = standIn.recordsSent;

    const mine = await store.readAccountEvents(alice);
    assert.deepEqual(
      mine.map((e) => [e.streamName, e.type]),
      [
        [filterStream(first), 'FilterCreated'],
        [filterStream(first), 'FilterUpdated'],
        [filterStream(second), 'FilterCreated'],
      ],
    );
    assert.equal((await collect(eventHistory(store, { accountId: alice }))).length, 3);
    const asOf = await filtersAsOf(store, alice, { position: renamedAt });
    assert.deepEqual(
      asOf.map((v) => v.title),
      ['renamed'],
    );
    assert.equal(standIn.recordsSent - sentBefore, 0, 'no record of $all was read');
  });

  it('skips an entry whose append failed, and one naming a stream another account owns', async () => {
    const [alice, bob] = [newId(), newId()];
    const [mine, bobs] = [newId(), newId()];
    await store.appendToStream(filterStream(bobs), [created(bobs, bob)], 'no_stream');
    await store.appendToStream(filterStream(mine), [created(mine, alice)], 'no_stream');
    for (const stream of [filterStream(bobs), filterStream(newId())]) {
      await store.client.appendToStream(accountStream(alice), jsonEvent({ type: 'FilterStreamOwned', data: { stream } }));
    }
    assert.deepEqual(
      (await store.readAccountEvents(alice)).map((e) => e.streamName),
      [filterStream(mine)],
    );
  });

  // The server deduplicates `any` appends only through a bounded cache of recent ids, lost on restart and
  // leader change (IndexWriter.cs 109, 203-231); the stand-in forgets it on `forgetCommittedIds`.
  it('writes each entry once when a creation is retried after the server forgot its recent ids, and when two writers race', async () => {
    const alice = newId();
    const [retried, raced] = [newId(), newId()];
    const creation = (filterId: string): NewEvent => ({ ...created(filterId, alice), id: randomUUID() });
    const first = creation(retried);
    await store.appendToStream(filterStream(retried), [first], 'no_stream');
    standIn.log.forgetCommittedIds();
    await store.appendToStream(filterStream(retried), [first], 'no_stream');
    const other = EsdbEventStore.connect(standIn.url);
    try {
      const both = creation(raced);
      await Promise.all([store.appendToStream(filterStream(raced), [both], 'no_stream'), other.appendToStream(filterStream(raced), [both], 'no_stream')]);
    } finally {
      await other.close();
    }
    const entries = await store.readStream(accountStream(alice));
    assert.deepEqual(entries.map((e) => (e.data as { stream: string }).stream).sort(), [filterStream(retried), filterStream(raced)].sort());
    assert.deepEqual((await store.readAccountEvents(alice)).map((e) => e.streamName).sort(), [filterStream(retried), filterStream(raced)].sort());
  });

  it('fills the index once for a log written before it existed', async () => {
    const alice = newId();
    const old = newId();
    // An older release's write: the filter stream alone, no index entry.
    await store.client.appendToStream(filterStream(old), jsonEvent({ id: randomUUID(), type: 'FilterCreated', data: created(old, alice).data as never }));
    const fresh = EsdbEventStore.connect(standIn.url);
    try {
      assert.deepEqual(
        (await fresh.readAccountEvents(alice)).map((e) => e.streamName),
        [filterStream(old)],
      );
      const sentBefore = standIn.recordsSent;
      const again = EsdbEventStore.connect(standIn.url);
      assert.equal((await again.readAccountEvents(alice)).length, 1);
      await again.close();
      assert.equal(standIn.recordsSent - sentBefore, 0, 'the backfill is not made again');
    } finally {
      await fresh.close();
    }
  });
});
