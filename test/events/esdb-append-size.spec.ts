import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { AppendTooLargeError } from '../../src/events/event-store.ts';
import { jsonErrors } from '../../src/http/http-errors.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { MAX_APPEND_SIZE } from '../support/esdb-stand-in-append-size.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';

/** One event whose data, `{"x":"…"}` with `size - 8` characters, counts `size` bytes: a 24.10 server counts the data alone. */
const eventOfSize = (size: number, metadata: Record<string, unknown> = {}, type = 'Big') => ({ type, data: { x: 'a'.repeat(size - 8) }, metadata });

for (const appendCall of ['BatchAppend', 'Append'] as const) {
  describe(`EventStoreDB MaxAppendSize through ${appendCall} (protocol stand-in, not a server)`, () => {
    let standIn: EsdbStandIn;
    let store: EsdbEventStore;
    before(async () => {
      standIn = await EsdbStandIn.start(appendCall);
      store = EsdbEventStore.connect(standIn.url);
    });
    after(async () => {
      await store.close();
      await standIn.stop();
    });

    it(`takes an append of exactly ${MAX_APPEND_SIZE} bytes and refuses one more byte with AppendTooLargeError, writing nothing`, async () => {
      const stream = `filter-${newId()}`;
      await store.appendToStream(stream, [eventOfSize(MAX_APPEND_SIZE)], 'no_stream');
      const refused = `filter-${newId()}`;
      await assert.rejects(store.appendToStream(refused, [eventOfSize(MAX_APPEND_SIZE + 1)], 'no_stream'), (error: unknown) => {
        assert.ok(error instanceof AppendTooLargeError, String(error));
        assert.equal(error.maxBytes, MAX_APPEND_SIZE);
        return true;
      });
      assert.deepEqual(await store.readStream(refused), []);
      assert.equal((await store.readStream(stream)).length, 1);
    });

    // Event.SizeOnDisk at v24.10.0 (Data/Event.cs 23-24): `??` binds looser than `+`, so data present means data alone.
    it('counts the data bytes alone: metadata and a long type on top of a full append are taken', async () => {
      const stream = `filter-${newId()}`;
      const full = eventOfSize(MAX_APPEND_SIZE, { note: 'm'.repeat(4096) }, `Big${'T'.repeat(200)}`);
      await store.appendToStream(stream, [full], 'no_stream');
      assert.equal((await store.readStream(stream)).length, 1);
    });

    it('counts every event of the append together, and the connection serves the next append', async () => {
      const stream = `filter-${newId()}`;
      const half = eventOfSize(MAX_APPEND_SIZE / 2 + 1);
      await assert.rejects(store.appendToStream(stream, [half, half], 'no_stream'), AppendTooLargeError);
      assert.deepEqual(await store.readStream(stream), []);
      await store.appendToStream(stream, [half], 'no_stream');
      await store.appendToStream(stream, [half], 0n);
      assert.equal((await store.readStream(stream)).length, 2);
    });
  });
}

describe('An append the event store refuses as too large, over HTTP', () => {
  it('answers 413 with a JSON error naming the limit, never 500', async () => {
    const app = new Koa();
    app.use(jsonErrors(silentLogger));
    app.use(() => {
      throw new AppendTooLargeError(MAX_APPEND_SIZE);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/filters`, { method: 'POST' });
      assert.equal(response.status, 413);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await response.json(), {
        error: `The change is too large to store: the event store takes at most ${MAX_APPEND_SIZE} bytes in one append`,
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
