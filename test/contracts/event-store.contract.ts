import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type EventStore, type NewEvent } from '../../src/events/event-store.ts';
import { contractSubject } from './contract-subject.ts';

export interface EventStoreFixture {
  /** A store on fresh data. */
  open(): Promise<EventStore>;
  /** A second, independent connection to the same data as `store` (another process, in production). */
  openSibling?(store: EventStore): Promise<EventStore>;
}

const event = (n: number): NewEvent => ({ type: 'SomethingHappened', data: { n, text: 'é ✓' }, metadata: { requestId: `r${n}` } });
const stream = () => `contract-${randomUUID().replaceAll('-', '')}`;

/** Every behaviour the commands and projectors rely on; run against each EventStore adapter. */
export function eventStoreContract(name: string, fixture: () => EventStoreFixture | null): void {
  describe(`EventStore contract: ${name}`, function () {
    const given = contractSubject<EventStore, EventStoreFixture>(fixture);

    it('appends to a new stream from revision 0 and reads it back in order', async () => {
      const name = stream();
      const result = await given.store.appendToStream(name, [event(1), event(2), event(3)], 'no_stream');
      assert.equal(result.nextRevision, 2n);
      const read = await given.store.readStream(name);
      assert.deepEqual(
        read.map((e) => e.revision),
        [0n, 1n, 2n],
      );
      assert.deepEqual(
        read.map((e) => (e.data as { n: number }).n),
        [1, 2, 3],
      );
      assert.deepEqual(read[0]!.data, { n: 1, text: 'é ✓' });
      assert.deepEqual(read[0]!.metadata, { requestId: 'r1' });
      assert.equal(read[0]!.type, 'SomethingHappened');
      assert.equal(read[2]!.position, result.position);
      assert.ok(!Number.isNaN(Date.parse(read[0]!.recordedAt)));
    });

    it('gives every event of one append its own, growing position', async () => {
      const name = stream();
      const result = await given.store.appendToStream(name, [event(1), event(2), event(3)], 'no_stream');
      const positions = (await given.store.readAll({ after: result.position - 1n, limit: 10 })).map((e) => e.position);
      assert.ok(positions.includes(result.position));
      const mine = (await given.store.readStream(name)).map((e) => e.position);
      assert.equal(new Set(mine).size, 3, `positions ${mine.join(', ')}`);
      assert.ok(mine[0]! < mine[1]! && mine[1]! < mine[2]!, `positions ${mine.join(', ')}`);
    });

    it('reads a stream that does not exist as empty', async () => {
      assert.deepEqual(await given.store.readStream(stream()), []);
    });

    it('appends when the expected revision is the current one', async () => {
      const name = stream();
      await given.store.appendToStream(name, [event(1)], 'no_stream');
      const result = await given.store.appendToStream(name, [event(2)], 0n);
      assert.equal(result.nextRevision, 1n);
    });

    it('refuses a stale expected revision with a ConcurrencyError and appends nothing', async () => {
      const name = stream();
      await given.store.appendToStream(name, [event(1), event(2)], 'no_stream');
      await assert.rejects(given.store.appendToStream(name, [event(3)], 0n), ConcurrencyError);
      await assert.rejects(given.store.appendToStream(name, [event(3)], 5n), ConcurrencyError);
      assert.equal((await given.store.readStream(name)).length, 2);
    });

    it('honours no_stream, stream_exists and any', async () => {
      const name = stream();
      await assert.rejects(given.store.appendToStream(name, [event(1)], 'stream_exists'), ConcurrencyError);
      await assert.rejects(given.store.appendToStream(name, [event(1)], 0n), ConcurrencyError);
      await given.store.appendToStream(name, [event(1)], 'no_stream');
      await assert.rejects(given.store.appendToStream(name, [event(2)], 'no_stream'), ConcurrencyError);
      await given.store.appendToStream(name, [event(2)], 'stream_exists');
      const result = await given.store.appendToStream(name, [event(3)], 'any');
      assert.equal(result.nextRevision, 2n);
    });

    it('lets exactly one of two concurrent writers with the same expectation win', async () => {
      const name = stream();
      await given.store.appendToStream(name, [event(1)], 'no_stream');
      const outcomes = await Promise.allSettled([given.store.appendToStream(name, [event(2)], 0n), given.store.appendToStream(name, [event(3)], 0n)]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.ok(rejected.reason instanceof ConcurrencyError);
      assert.equal((await given.store.readStream(name)).length, 2);
    });

    it('reads the global log in position order, after a position, a page at a time', async () => {
      const a = stream();
      const b = stream();
      const first = await given.store.appendToStream(a, [event(1)], 'no_stream');
      await given.store.appendToStream(b, [event(2), event(3)], 'no_stream');
      await given.store.appendToStream(a, [event(4)], 0n);
      const after = await given.store.readAll({ after: first.position - 1n, limit: 1000 });
      const mine = after.filter((e) => e.streamName === a || e.streamName === b);
      assert.deepEqual(
        mine.map((e) => (e.data as { n: number }).n),
        [1, 2, 3, 4],
      );
      const positions = after.map((e) => e.position);
      assert.deepEqual(
        [...positions].sort((x, y) => (x < y ? -1 : 1)),
        positions,
      );
      const page = await given.store.readAll({ after: first.position, limit: 2 });
      assert.equal(page.length, 2);
      assert.ok(page.every((e) => e.position > first.position));
    });

    it('tells listeners about its own appends', async () => {
      let calls = 0;
      const stop = given.store.onAppend(() => (calls += 1));
      await given.store.appendToStream(stream(), [event(1)], 'no_stream');
      stop();
      await given.store.appendToStream(stream(), [event(2)], 'no_stream');
      assert.equal(calls, 1);
    });

    it('tells listeners about appends made through another connection', async function () {
      if (!given.setup.openSibling) {
        console.log("      (skipped: this adapter's fixture cannot open a second connection to the same data)");
        this.skip();
      }
      const sibling = await given.setup.openSibling(given.store);
      try {
        const heard = new Promise<void>((resolve) => {
          const stop = given.store.onAppend(() => {
            stop();
            resolve();
          });
        });
        const result = await sibling.appendToStream(stream(), [event(1)], 'no_stream');
        await heard;
        const seen = await given.store.readAll({ after: result.position - 1n, limit: 1 });
        assert.equal(seen[0]?.position, result.position);
      } finally {
        await sibling.close();
      }
    });

    it('keeps acknowledged appends after the store is closed and opened again', async function () {
      if (!given.setup.openSibling) {
        console.log("      (skipped: this adapter's fixture cannot open a second connection to the same data)");
        this.skip();
      }
      const name = stream();
      await given.store.appendToStream(name, [event(1), event(2)], 'no_stream');
      const reopened = await given.setup.openSibling(given.store);
      await given.store.close();
      try {
        assert.equal((await reopened.readStream(name)).length, 2);
      } finally {
        await reopened.close();
      }
    });
  });
}
