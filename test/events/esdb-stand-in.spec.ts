import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, FORWARDS, jsonEvent, NO_STREAM, START, StreamDeletedError, streamNameFilter } from '@eventstore/db-client';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';

// The gRPC protocol STAND-IN (test/support/esdb-stand-in.ts), not a server: the EventStoreDB 24.10 rules it
// follows, seen through @eventstore/db-client as the adapter sees them (sources cited in the stand-in).
describe('the EventStoreDB protocol stand-in (not a server) follows the server’s rules', function () {
  let standIn: EsdbStandIn;
  let client: EventStoreDBClient;
  const event = (n: number, id = randomUUID()) => jsonEvent({ id, type: 'T', data: { n } });
  before(async () => {
    standIn = await EsdbStandIn.start();
    client = EventStoreDBClient.connectionString(standIn.url);
  });
  after(async () => {
    await client.dispose();
    await standIn.stop();
  });

  it("gives each event of an append its own committed position and answers with the last event's", async () => {
    const stream = `s-${randomUUID()}`;
    const result = await client.appendToStream(stream, [event(1), event(2), event(3)]);
    const read = [];
    for await (const resolved of client.readStream(stream)) read.push(resolved.event!);
    assert.ok(read.every((e) => e.position!.commit === e.position!.prepare));
    assert.deepEqual(result.position, read[2]!.position);
  });

  it('writes nothing twice when an append is repeated with the same event ids', async () => {
    const stream = `s-${randomUUID()}`;
    const ids = [randomUUID(), randomUUID()];
    const first = await client.appendToStream(stream, [event(1, ids[0]), event(2, ids[1])], { expectedRevision: NO_STREAM });
    const again = await client.appendToStream(stream, [event(1, ids[0]), event(2, ids[1])], { expectedRevision: NO_STREAM });
    assert.deepEqual(again, first);
    assert.equal(standIn.log.head(stream), 1n);
  });

  it('refuses appends to and reads of a tombstoned stream with StreamDeleted', async () => {
    const stream = `s-${randomUUID()}`;
    await client.appendToStream(stream, [event(1)]);
    standIn.log.tombstone(stream);
    await assert.rejects(client.appendToStream(stream, [event(2)]), StreamDeletedError);
    await assert.rejects(async () => {
      for await (const _ of client.readStream(stream)) void _;
    }, StreamDeletedError);
  });

  it('refuses a read of $all from a position inside a record', async () => {
    const result = await client.appendToStream(`s-${randomUUID()}`, [event(1)]);
    const inside = { commit: result.position!.commit + 1n, prepare: result.position!.commit + 1n };
    await assert.rejects(async () => {
      for await (const _ of client.readAll({ fromPosition: inside, direction: FORWARDS, maxCount: 1 })) void _;
    }, /invalid position/);
    let read = 0;
    for await (const _ of client.readAll({ fromPosition: result.position!, maxCount: 1 })) read += 1;
    assert.equal(read, 1);
  });

  it('pushes a live event to a subscription after the append has returned, with checkpoints over what the filter left out', async () => {
    const prefix = `live${randomUUID().slice(0, 8)}-`;
    const checkpoints: bigint[] = [];
    const subscription = client.subscribeToAll({
      fromPosition: START,
      filter: streamNameFilter({ prefixes: [prefix], checkpointInterval: 1, checkpointReached: (_s, position) => void checkpoints.push(position.commit) }),
    });
    const seen: string[] = [];
    const caughtUp = new Promise<void>((resolve) => subscription.once('caughtUp', () => resolve()));
    subscription.on('data', (resolved) => seen.push(resolved.event!.streamId));
    await caughtUp;
    assert.ok(checkpoints.length > 0, 'a checkpoint on catching up');
    const appended = client.appendToStream(`${prefix}a`, [event(1)]);
    await appended;
    assert.deepEqual(seen, [], 'not pushed in the tick of the append');
    await new Promise<void>((resolve) => subscription.once('data', () => resolve()));
    assert.deepEqual(seen, [`${prefix}a`]);
    await subscription.unsubscribe();
  });
});
