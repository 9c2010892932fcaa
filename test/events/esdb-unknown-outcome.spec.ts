import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { EventStoreUnavailableError, type NewEvent } from '../../src/events/event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { waitUntil } from '../support/wait-until.ts';

// Appends whose outcome is unknown (a timeout, a deadline), against the gRPC protocol STAND-IN (not a
// server): a 24.10 server answers a slow write Prepare/CommitTimeout after 2 s and makes it all the same
// (RequestManagerBase.cs 155-162), as the stand-in's held writes do.
const event = (): NewEvent => ({ id: randomUUID(), type: 'T', data: { n: 1 }, metadata: {} });

for (const appendCall of ['BatchAppend', 'Append'] as const) {
  describe(`EventStoreDB adapter: an append of unknown outcome, through ${appendCall} (protocol stand-in, not a server)`, function () {
    this.timeout(30_000);
    let standIn: EsdbStandIn;
    beforeEach(async () => {
      standIn = await EsdbStandIn.start(appendCall);
      standIn.gate.writeTimeoutMs = 200;
    });
    afterEach(async () => {
      await standIn.stop();
    });

    it('is retried as the same append until the server answers, and the write is there once', async () => {
      const events = EsdbEventStore.connect(`${standIn.url}&defaultDeadline=5000`, 20_000);
      try {
        await events.appendToStream(`filter-${newId()}`, [event()], 'no_stream');
        const stream = `filter-${newId()}`;
        const first = event();
        standIn.holdWrites();
        const append = events.appendToStream(stream, [first], 'no_stream');
        await waitUntil(() => (standIn.gate.timeouts ?? 0) >= 2, 'two appends answered with the commit timeout');
        standIn.release();
        const result = await append;
        const stored = standIn.log.stream(stream, 0n);
        assert.deepEqual(
          stored.map((e) => e.id),
          [first.id],
        );
        assert.equal(result.nextRevision, 0n);
        assert.equal(result.position, (await events.readStream(stream))[0]!.position);
      } finally {
        await events.close();
      }
    });

    it('fails as unavailable only once its budget is spent, and the write the node makes later is made once', async () => {
      const events = EsdbEventStore.connect(`${standIn.url}&defaultDeadline=5000`, 600);
      try {
        await events.appendToStream(`filter-${newId()}`, [event()], 'no_stream');
        const stream = `filter-${newId()}`;
        const first = event();
        standIn.holdWrites();
        await assert.rejects(events.appendToStream(stream, [first], 'no_stream'), (error: unknown) => {
          assert.ok(error instanceof EventStoreUnavailableError, String(error));
          assert.match(error.message, /unknown/);
          return true;
        });
        standIn.release();
        assert.deepEqual(
          standIn.log.stream(stream, 0n).map((e) => e.id),
          [first.id],
        );
      } finally {
        await events.close();
      }
    });
  });
}
