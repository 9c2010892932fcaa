import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type EventStore, type NewEvent, type RecordedEvent } from '../../src/events/event-store.ts';
import type { VerifyOutcome } from '../../src/events/chain-verify.ts';
import { contractSubject } from './contract-subject.ts';

export interface EventStoreFixture {
  /** A store on fresh data. */
  open(): Promise<EventStore>;
  /** A second, independent connection to the same data as `store` (another process, in production). */
  openSibling?(store: EventStore): Promise<EventStore>;
  /** Why this adapter's server (a stand-in) cannot take an append retried with the same event ids yet. */
  readonly noIdempotentWrites?: string;
  /** `verify` over the store's data (docs/auditing.md): every chain of the log checked. */
  verifyChains(store: EventStore): Promise<VerifyOutcome>;
}

const event = (n: number): NewEvent => ({ type: 'SomethingHappened', data: { n, text: 'é ✓' }, metadata: { requestId: `r${n}` } });
// In the project's stream category, which is all an EventStoreDB adapter reads from $all.
const stream = () => `filter-contract${randomUUID().replaceAll('-', '')}`;
const numbers = (events: readonly RecordedEvent[]) => events.map((e) => (e.data as { n: number }).n);

/**
 * Every behaviour the commands and projectors rely on; run against each EventStore adapter. What holds
 * for every adapter: each event has its own position, strictly growing in log order, including the events
 * of one append; an append answers with its last event's position; reading the log after any event's
 * position returns exactly the events that follow it, the rest of its own append first. Positions are
 * opaque: `after` is null or a position the store handed out, never one computed from it.
 */
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

    it('gives every event of one append its own, growing position, and answers with the last one', async () => {
      const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
      const name = stream();
      const result = await given.store.appendToStream(name, [event(1), event(2), event(3)], 'no_stream');
      const mine = (await given.store.readAll({ after: marker.position, limit: 1000 })).filter((e) => e.streamName === name).map((e) => e.position);
      assert.equal(mine.length, 3);
      assert.ok(mine[0]! > marker.position && mine[0]! < mine[1]! && mine[1]! < mine[2]!, `positions ${mine.join(', ')}`);
      assert.equal(result.position, mine[2]);
      assert.deepEqual(
        (await given.store.readStream(name)).map((e) => e.position),
        mine,
      );
    });

    it('reads after any event, even one inside an append, exactly the events that follow it', async () => {
      const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
      const [a, b] = [stream(), stream()];
      await given.store.appendToStream(a, [event(1), event(2), event(3)], 'no_stream');
      await given.store.appendToStream(b, [event(4), event(5)], 'no_stream');
      const ours = (page: readonly RecordedEvent[]) => page.filter((e) => e.streamName === a || e.streamName === b);
      const all = ours(await given.store.readAll({ after: marker.position, limit: 1000 }));
      assert.deepEqual(numbers(all), [1, 2, 3, 4, 5]);
      for (const [index, from] of all.entries()) {
        const rest = ours(await given.store.readAll({ after: from.position, limit: 1000 }));
        assert.deepEqual(numbers(rest), numbers(all.slice(index + 1)), `after event ${index + 1}`);
      }
    });

    it('loses nothing when a reader stops in the middle of an append and resumes from its checkpoint', async () => {
      const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
      const name = stream();
      await given.store.appendToStream(name, [event(1), event(2), event(3), event(4)], 'no_stream');
      // A projector that takes two events, stores the second one's position as its checkpoint and stops.
      const page = await given.store.readAll({ after: marker.position, limit: 2 });
      const firstBatch = page.filter((e) => e.streamName === name).slice(0, 2);
      assert.deepEqual(numbers(firstBatch), [1, 2]);
      const checkpoint = firstBatch.at(-1)!.position;
      // Another process (or the same one, restarted) resumes from that checkpoint.
      const resumed = given.setup.openSibling ? await given.setup.openSibling(given.store) : given.store;
      try {
        const rest = (await resumed.readAll({ after: checkpoint, limit: 1000 })).filter((e) => e.streamName === name);
        assert.deepEqual(numbers(rest), [3, 4]);
      } finally {
        if (resumed !== given.store) await resumed.close();
      }
    });

    it('reads a stream that does not exist as empty', async () => {
      assert.deepEqual(await given.store.readStream(stream()), []);
    });

    it('reads only the events after a given revision', async () => {
      const name = stream();
      await given.store.appendToStream(name, [event(1), event(2), event(3)], 'no_stream');
      await given.store.appendToStream(name, [event(4)], 2n);
      assert.deepEqual(numbers(await given.store.readStream(name, { after: 1n })), [3, 4]);
      assert.deepEqual(
        (await given.store.readStream(name, { after: 0n })).map((e) => e.revision),
        [1n, 2n, 3n],
      );
      assert.deepEqual(await given.store.readStream(name, { after: 3n }), []);
      assert.deepEqual(await given.store.readStream(name, { after: 10n }), []);
      assert.deepEqual(await given.store.readStream(stream(), { after: 0n }), []);
    });

    it("reads a stream's last event alone, and null for a stream that does not exist", async () => {
      const name = stream();
      const { store } = given;
      if (!store.readLastEvent) assert.fail('both adapters read a last event (the usage ledger relies on it)');
      assert.equal(await store.readLastEvent(name), null);
      await store.appendToStream(name, [event(1), event(2)], 'no_stream');
      await store.appendToStream(name, [event(3)], 1n);
      const last = await store.readLastEvent(name);
      assert.deepEqual([last?.revision, (last?.data as { n: number } | undefined)?.n], [2n, 3]);
      assert.deepEqual(last, (await store.readStream(name)).at(-1));
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

    it('keeps the event ids it is given, and gives its own to events without one', async () => {
      const name = stream();
      const given1 = randomUUID();
      await given.store.appendToStream(name, [{ ...event(1), id: given1 }, event(2)], 'no_stream');
      const [first, second] = await given.store.readStream(name);
      assert.equal(first!.eventId, given1);
      assert.match(second!.eventId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.notEqual(second!.eventId, given1);
    });

    it('answers an append retried with the same event ids as the first, and stores its events once', async function () {
      if (given.setup.noIdempotentWrites) {
        console.log(`      (skipped: ${given.setup.noIdempotentWrites})`);
        this.skip();
      }
      const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
      const name = stream();
      const ids = [randomUUID(), randomUUID()];
      const withIds = (n: number, i: number): NewEvent => ({ ...event(n), id: ids[i]! });
      const first = await given.store.appendToStream(name, [withIds(1, 0), withIds(2, 1)], 'no_stream');
      const retried = await given.store.appendToStream(name, [withIds(1, 0), withIds(2, 1)], 'no_stream');
      assert.equal(retried.nextRevision, first.nextRevision);
      const later = { ...event(3), id: randomUUID() };
      await given.store.appendToStream(name, [later], 1n);
      assert.equal((await given.store.appendToStream(name, [later], 1n)).nextRevision, 2n);
      const stored = await given.store.readStream(name);
      assert.deepEqual(numbers(stored), [1, 2, 3]);
      assert.deepEqual(
        stored.map((e) => e.eventId),
        [...ids, later.id],
      );
      const mine = (await given.store.readAll({ after: marker.position, limit: 1000 })).filter((e) => e.streamName === name);
      assert.equal(mine.length, 3);
    });

    it('refuses a retried append whose ids match only in part, as a conflict', async function () {
      if (given.setup.noIdempotentWrites) {
        console.log(`      (skipped: ${given.setup.noIdempotentWrites})`);
        this.skip();
      }
      const name = stream();
      const id = randomUUID();
      await given.store.appendToStream(
        name,
        [
          { ...event(1), id },
          { ...event(2), id: randomUUID() },
        ],
        'no_stream',
      );
      await assert.rejects(
        given.store.appendToStream(
          name,
          [
            { ...event(1), id },
            { ...event(2), id: randomUUID() },
          ],
          'no_stream',
        ),
        ConcurrencyError,
      );
      assert.equal((await given.store.readStream(name)).length, 2);
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
      const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
      const first = await given.store.appendToStream(a, [event(1)], 'no_stream');
      await given.store.appendToStream(b, [event(2), event(3)], 'no_stream');
      await given.store.appendToStream(a, [event(4)], 0n);
      const after = await given.store.readAll({ after: marker.position, limit: 1000 });
      const mine = after.filter((e) => e.streamName === a || e.streamName === b);
      assert.deepEqual(numbers(mine), [1, 2, 3, 4]);
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
        const marker = await given.store.appendToStream(stream(), [event(0)], 'no_stream');
        const heard = new Promise<void>((resolve) => {
          const stop = given.store.onAppend(() => {
            stop();
            resolve();
          });
        });
        const name = stream();
        const result = await sibling.appendToStream(name, [event(1)], 'no_stream');
        await heard;
        const seen = (await given.store.readAll({ after: marker.position, limit: 1000 })).find((e) => e.streamName === name);
        assert.equal(seen?.position, result.position);
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

    it('chains every event it appends, whatever the expected revision and from every connection, so verify passes', async () => {
      const name = stream();
      await given.store.appendToStream(name, [event(1), event(2)], 'no_stream');
      await given.store.appendToStream(name, [event(3)], 1n);
      await given.store.appendToStream(name, [event(4)], 'stream_exists');
      await given.store.appendToStream(name, [event(5)], 'any');
      await given.store.appendToStream(stream(), [event(6)], 'any');
      const sibling = given.setup.openSibling ? await given.setup.openSibling(given.store) : null;
      try {
        // Two writers that both append with `any` at once: each event must still link to the one before it.
        await Promise.all([given.store.appendToStream(name, [event(7)], 'any'), (sibling ?? given.store).appendToStream(name, [event(8)], 'any')]);
      } finally {
        await sibling?.close();
      }
      assert.deepEqual(
        (await given.store.readStream(name)).map((e) => e.revision),
        [0n, 1n, 2n, 3n, 4n, 5n, 6n],
      );
      const outcome = await given.setup.verifyChains(given.store);
      assert.ok(outcome.ok, outcome.ok ? '' : `position ${outcome.position}: ${outcome.reason}`);
      assert.ok(outcome.events >= 8 && outcome.head !== null);
    });
  });
}
