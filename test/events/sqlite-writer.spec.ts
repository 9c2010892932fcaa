import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EventStoreUnavailableError } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { SqliteWriter, startWriterThread } from '../../src/events/sqlite-writer.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const stream = () => `writer-${randomUUID().replaceAll('-', '')}`;
const encoded = (n: number) => ({ type: 'SomethingHappened', data: JSON.stringify({ n }), metadata: '{}' });

/** A SQLite event store file with its schema, and a writer thread on it. */
async function writerOnFreshFile(): Promise<SqliteWriter> {
  const path = join(scratchDir(), 'events.sqlite');
  await new SqliteEventStore(path).close();
  return new SqliteWriter(path);
}

describe('SQLite event store: the writer thread', function () {
  this.timeout(60_000);

  it('answers a malformed request with a failure, and goes on appending', async () => {
    const writer = await writerOnFreshFile();
    try {
      const hostile = [
        { kind: 'append', appends: [] },
        { kind: 'append', appends: [{ streamName: 5, expected: 'any', events: [encoded(1)] }] },
        { kind: 'append', appends: [{ streamName: stream(), expected: 'sometime', events: [encoded(1)] }] },
        { kind: 'append', appends: [{ streamName: stream(), expected: 'any', events: [{ type: 'X', data: { n: 1 }, metadata: '{}' }] }] },
        { kind: 'append', appends: null },
        // A joint append's other part on its own stream, nested again, or malformed.
        {
          kind: 'append',
          appends: [{ streamName: 's', expected: 'any', events: [encoded(1)], alongside: { streamName: 's', expected: 'any', events: [encoded(2)] } }],
        },
        {
          kind: 'append',
          appends: [
            {
              streamName: stream(),
              expected: 'any',
              events: [encoded(1)],
              alongside: {
                streamName: stream(),
                expected: 'any',
                events: [encoded(2)],
                alongside: { streamName: stream(), expected: 'any', events: [encoded(3)] },
              },
            },
          ],
        },
        {
          kind: 'append',
          appends: [{ streamName: stream(), expected: 'any', events: [encoded(1)], alongside: { streamName: stream(), expected: 'any', events: [] } }],
        },
        { kind: 'append', appends: [{ streamName: stream(), expected: 'any', events: [encoded(1)], alongside: null }] },
        { kind: 'drop tables' },
      ];
      for (const request of hostile) {
        const reply = await writer.request(request as never);
        assert.equal(reply.kind, 'failed', JSON.stringify(request));
      }
      const reply = await writer.request({ kind: 'append', appends: [{ streamName: stream(), expected: 'no_stream', events: [encoded(1), encoded(2)] }] });
      assert.equal(reply.kind, 'appended');
      assert.deepEqual(reply.kind === 'appended' && reply.outcomes.map((o) => o.ok && o.nextRevision), [1n]);
    } finally {
      await writer.close();
    }
  });

  it('refuses an event that JSON cannot hold, alone: the appends beside it are kept', async () => {
    const store = SqliteEventStore.inDataDir(scratchDir());
    try {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const [kept, refused, big] = await Promise.allSettled([
        store.appendToStream(stream(), [{ type: 'Fine', data: { n: 1 }, metadata: {} }], 'no_stream'),
        store.appendToStream(stream(), [{ type: 'Cyclic', data: cyclic, metadata: {} }], 'no_stream'),
        store.appendToStream(stream(), [{ type: 'BigInt', data: { n: 1n }, metadata: {} }], 'no_stream'),
      ]);
      assert.equal(kept.status, 'fulfilled');
      assert.ok(refused.status === 'rejected' && refused.reason instanceof TypeError);
      assert.ok(big.status === 'rejected' && big.reason instanceof TypeError);
    } finally {
      await store.close();
    }
  });

  it('fails what a dead thread had been asked as unavailable, and starts a new thread for what follows', async () => {
    const path = join(scratchDir(), 'events.sqlite');
    await new SqliteEventStore(path).close();
    let started = 0;
    // The first thread dies at its first request, as one that ran out of memory would.
    const writer = new SqliteWriter(path, (workerData) => {
      started += 1;
      if (started === 1) return new Worker('require("node:worker_threads").parentPort.once("message", () => process.exit(3));', { eval: true });
      return startWriterThread(workerData);
    });
    try {
      await assert.rejects(
        writer.request({ kind: 'append', appends: [{ streamName: stream(), expected: 'any', events: [encoded(1)] }] }),
        (error) => error instanceof EventStoreUnavailableError && /writer thread exited \(code 3\)/.test(error.message),
      );
      const reply = await writer.request({ kind: 'append', appends: [{ streamName: stream(), expected: 'any', events: [encoded(2)] }] });
      assert.equal(reply.kind, 'appended');
      assert.equal(started, 2);
    } finally {
      await writer.close();
    }
  });
});
