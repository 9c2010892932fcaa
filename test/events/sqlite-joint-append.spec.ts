import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { verifyChains } from '../../src/events/chain-verify.ts';
import { ConcurrencyError, type NewEvent } from '../../src/events/event-store.ts';
import { SqliteChainSource } from '../../src/events/sqlite-chain-source.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const stream = (kind: string) => `${kind}-${randomUUID().replaceAll('-', '')}`;
const event = (n: number, id?: string): NewEvent => ({ ...(id ? { id } : {}), type: 'SomethingHappened', data: { n }, metadata: { n } });
const numbers = async (store: SqliteEventStore, name: string) => (await store.readStream(name)).map((e) => (e.data as { n: number }).n);

// EventStore.appendWith on SQLite: a filter's events and its account's usage reservation in one savepoint
// of one group commit, so the two are stored together or not at all (account-usage-check.ts).
describe('SQLite event store: a joint append to two streams', function () {
  this.timeout(60_000);
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = scratchDir();
    store = SqliteEventStore.inDataDir(dir);
  });
  afterEach(() => store.close());

  it('stores the other stream’s events first, then its own, and answers where each was stored', async () => {
    const own = stream('own');
    const other = stream('other');
    const result = await store.appendWith(own, [event(1), event(2)], 'no_stream', { streamName: other, events: [event(10)], expected: 'no_stream' });
    assert.deepEqual(await numbers(store, own), [1, 2]);
    assert.deepEqual(await numbers(store, other), [10]);
    assert.equal(result.nextRevision, 1n);
    assert.equal(result.alongside?.nextRevision, 0n);
    const log = await store.readAll({ after: null, limit: 10 });
    assert.deepEqual(
      log.map((e) => [e.streamName, e.position]),
      [
        [other, result.alongside.position],
        [own, result.position - 1n],
        [own, result.position],
      ],
    );
  });

  it('stores neither when the other stream moved, and names that stream in the ConcurrencyError', async () => {
    const own = stream('own');
    const other = stream('other');
    await store.appendToStream(other, [event(10)], 'no_stream');
    await assert.rejects(
      store.appendWith(own, [event(1)], 'no_stream', { streamName: other, events: [event(11)], expected: 'no_stream' }),
      (error: unknown) => error instanceof ConcurrencyError && error.streamName === other && error.actual === 0n,
    );
    assert.deepEqual(await numbers(store, own), []);
    assert.deepEqual(await numbers(store, other), [10]);
  });

  it('stores neither when its own stream moved, and names its own stream', async () => {
    const own = stream('own');
    const other = stream('other');
    await store.appendToStream(own, [event(1)], 'no_stream');
    await assert.rejects(
      store.appendWith(own, [event(2)], 'no_stream', { streamName: other, events: [event(10)], expected: 'no_stream' }),
      (error: unknown) => error instanceof ConcurrencyError && error.streamName === own,
    );
    assert.deepEqual(await numbers(store, own), [1]);
    assert.deepEqual(await numbers(store, other), []);
  });

  it('answers an append of ids already stored as the first one did, and stores nothing of the other stream’s part', async () => {
    const own = stream('own');
    const other = stream('other');
    const ids = [randomUUID(), randomUUID()];
    const first = await store.appendToStream(own, [event(1, ids[0]), event(2, ids[1])], 'no_stream');
    const again = await store.appendWith(own, [event(1, ids[0]), event(2, ids[1])], 'no_stream', {
      streamName: other,
      events: [event(10)],
      expected: 'no_stream',
    });
    assert.deepEqual({ ...again }, { nextRevision: first.nextRevision, position: first.position, alongside: null });
    assert.deepEqual(await numbers(store, other), []);
  });

  it('shares one group commit with plain appends, a conflict failing only its own joint append', async () => {
    const moved = stream('other');
    await store.appendToStream(moved, [event(0)], 'no_stream');
    const before = store.commits;
    const [plain, joint, refused] = await Promise.allSettled([
      store.appendToStream(stream('plain'), [event(1)], 'no_stream'),
      store.appendWith(stream('own'), [event(2)], 'no_stream', { streamName: stream('other'), events: [event(20)], expected: 'no_stream' }),
      store.appendWith(stream('own'), [event(3)], 'no_stream', { streamName: moved, events: [event(30)], expected: 'no_stream' }),
    ]);
    assert.equal(store.commits - before, 1);
    assert.equal(plain.status, 'fulfilled');
    assert.equal(joint.status, 'fulfilled');
    assert.equal(refused.status, 'rejected');
    assert.deepEqual(await numbers(store, moved), [0]);
  });

  it('refuses an empty part and a second part on its own stream, before anything reaches the writer', async () => {
    const own = stream('own');
    await assert.rejects(store.appendWith(own, [event(1)], 'any', { streamName: own, events: [event(2)], expected: 'any' }), RangeError);
    await assert.rejects(store.appendWith(own, [event(1)], 'any', { streamName: stream('other'), events: [], expected: 'any' }), RangeError);
    await assert.rejects(store.appendWith(own, [], 'any', { streamName: stream('other'), events: [event(2)], expected: 'any' }), RangeError);
    assert.equal(store.commits, 0);
  });

  it('chains every event of a joint append, so verify passes over the log', async () => {
    const other = stream('other');
    for (let i = 0; i < 3; i += 1) {
      await store.appendWith(stream('own'), [event(i), event(i + 100)], 'no_stream', {
        streamName: other,
        events: [event(i + 10)],
        expected: i === 0 ? 'no_stream' : BigInt(i - 1),
      });
    }
    const source = new SqliteChainSource(join(dir, 'events.sqlite'));
    try {
      const outcome = await verifyChains(source);
      assert.ok(outcome.ok, outcome.ok ? '' : `position ${outcome.position}: ${outcome.reason}`);
      assert.equal(outcome.events, 9);
    } finally {
      source.close();
    }
  });
});
