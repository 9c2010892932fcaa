import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type NewEvent } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const event = (n: number): NewEvent => ({ type: 'SomethingHappened', data: { n }, metadata: {} });
const stream = () => `group-${randomUUID().replaceAll('-', '')}`;

describe('SQLite event store: group commit', () => {
  it('gives events time-ordered UUIDv7 ids, so the log in position order is the ids in order', async () => {
    const store = SqliteEventStore.inDataDir(scratchDir());
    try {
      for (let round = 0; round < 5; round += 1)
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendToStream(stream(), [event(i), event(i)], 'no_stream')));
      const ids = (await store.readAll({ after: null, limit: 1000 })).map((e) => e.eventId);
      assert.equal(ids.length, 200);
      assert.ok(
        ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
        'version 7, RFC 9562 variant',
      );
      assert.deepEqual(ids, [...ids].sort(), 'later events have greater ids');
    } finally {
      await store.close();
    }
  });

  it('commits appends made together in one transaction, each in its own place in the log, durably', async () => {
    const dir = scratchDir();
    const store = SqliteEventStore.inDataDir(dir);
    const streams = Array.from({ length: 40 }, stream);
    const before = store.commits;
    const results = await Promise.all(streams.map((name, i) => store.appendToStream(name, [event(i), event(i + 1000)], 'no_stream')));
    assert.equal(store.commits - before, 1, 'forty appends made in one turn share one transaction (one fsync)');
    const positions = results.map((r) => r.position);
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => (a < b ? -1 : 1)),
      'positions follow the order the appends were made in',
    );
    await store.close();

    const reopened = SqliteEventStore.inDataDir(dir);
    const log = await reopened.readAll({ after: null, limit: 1000 });
    assert.deepEqual(
      log.map((e) => [e.streamName, (e.data as { n: number }).n, e.revision]),
      streams.flatMap((name, i) => [
        [name, i, 0n],
        [name, i + 1000, 1n],
      ]),
    );
    assert.deepEqual(
      log.filter((_, i) => i % 2 === 1).map((e) => e.position),
      positions,
    );
    await reopened.close();
  });

  it('fails only the append whose revision conflicts; the others in its transaction are kept', async () => {
    const store = SqliteEventStore.inDataDir(scratchDir());
    const [contested, other, existing] = [stream(), stream(), stream()];
    await store.appendToStream(existing, [event(0)], 'no_stream');
    const before = store.commits;
    const outcomes = await Promise.allSettled([
      store.appendToStream(contested, [event(1)], 'no_stream'),
      store.appendToStream(contested, [event(2), event(3)], 'no_stream'),
      store.appendToStream(other, [event(4)], 'no_stream'),
      store.appendToStream(existing, [event(5)], 5n),
      store.appendToStream(existing, [event(6)], 0n),
    ]);
    assert.equal(store.commits - before, 1);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(o.reason instanceof ConcurrencyError);
    assert.deepEqual(
      (await store.readStream(contested)).map((e) => (e.data as { n: number }).n),
      [1],
      'nothing of the losing append is left, not even its first event',
    );
    assert.deepEqual(
      (await store.readStream(existing)).map((e) => (e.data as { n: number }).n),
      [0, 6],
    );
    assert.equal((await store.readStream(other)).length, 1);
    await store.close();
  });

  it('checks revisions one by one inside a group: appends to one stream in a row each see the one before', async () => {
    const store = SqliteEventStore.inDataDir(scratchDir());
    const name = stream();
    const results = await Promise.all([
      store.appendToStream(name, [event(1)], 'no_stream'),
      store.appendToStream(name, [event(2)], 0n),
      store.appendToStream(name, [event(3)], 1n),
    ]);
    assert.deepEqual(
      results.map((r) => r.nextRevision),
      [0n, 1n, 2n],
    );
    await store.close();
  });
});
