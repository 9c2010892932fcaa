import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  CancelledError,
  EventStoreDBClient,
  jsonEvent,
  NO_STREAM,
  NotLeaderError,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  DeadlineExceededError,
} from '@eventstore/db-client';
import { EsdbStandInCluster } from '../support/esdb-stand-in-cluster.ts';

// The three-node cluster of protocol STAND-INS (test/support/esdb-stand-in-cluster.ts), not servers, seen
// through @eventstore/db-client 6.2.1 as the adapter sees it; the 24.10 rules are cited in the stand-in.
describe('the EventStoreDB stand-in cluster (not a server) follows a 24.10 cluster’s rules', function () {
  this.timeout(30_000);
  let cluster: EsdbStandInCluster;
  const clients: EventStoreDBClient[] = [];
  const connect = (url: string) => {
    const client = EventStoreDBClient.connectionString(url);
    clients.push(client);
    return client;
  };
  const event = (id = randomUUID()) => jsonEvent({ id, type: 'T', data: { at: id } });
  const read = async (client: EventStoreDBClient, stream: string, requiresLeader = false) => {
    const ids: string[] = [];
    try {
      for await (const resolved of client.readStream(stream, { requiresLeader })) ids.push(resolved.event!.id);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return ids;
  };
  const at = (url: string) => connect(`esdb://${url}?tls=false`);

  beforeEach(async () => {
    cluster = await EsdbStandInCluster.start();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await cluster.shutdown();
  });

  it('answers Gossip.Read so an esdb+discover:// seed leads the client to the leader, or to a follower by nodePreference', async () => {
    const stream = `s-${randomUUID()}`;
    await connect(cluster.url({ discover: true })).appendToStream(stream, event(), { expectedRevision: NO_STREAM, requiresLeader: true });
    assert.equal(cluster.nodes[0]!.standIn.served.BatchAppend, 1);
    const follower = cluster.followers[0]!;
    cluster.lag(follower, 1);
    cluster.lag(cluster.followers[1]!, 1);
    // Both followers are one record behind: a follower-preferring client reads neither the write nor the stream.
    assert.deepEqual(await read(connect(cluster.url({ nodePreference: 'follower' })), stream), []);
  });

  it('forwards a write from a follower to the leader, and answers NotLeader when the write requires the leader', async () => {
    const follower = at(cluster.followers[0]!.standIn.endpoint);
    const stream = `s-${randomUUID()}`;
    await follower.appendToStream(stream, event(), { expectedRevision: NO_STREAM });
    assert.equal(cluster.log.head(stream), 0n);
    // BatchAppend is one call per client, sent with the first append's headers: requires-leader needs a client of its own.
    const strict = at(cluster.followers[0]!.standIn.endpoint);
    const error = await strict.appendToStream(stream, event(), { requiresLeader: true }).catch((e: unknown) => e);
    assert.ok(error instanceof NotLeaderError, String(error));
    assert.equal(`${error.leader.address}:${error.leader.port}`, cluster.leader!.standIn.endpoint);
    // The client moved to the leader it was told of: the same call now goes through.
    await strict.appendToStream(stream, event(), { requiresLeader: true });
    assert.equal(cluster.log.head(stream), 1n);
  });

  it('serves a lagging follower’s reads from its own copy, and a read that requires the leader with NotLeader', async () => {
    const node = cluster.followers[0]!;
    const follower = at(node.standIn.endpoint);
    const stream = `s-${randomUUID()}`;
    const ids = [randomUUID(), randomUUID()];
    await follower.appendToStream(stream, [event(ids[0]), event(ids[1])]);
    cluster.lag(node, 1);
    assert.deepEqual(await read(follower, stream), [ids[0]]);
    await assert.rejects(read(follower, stream, true), NotLeaderError);
    assert.deepEqual(await read(follower, stream, true), ids);
  });

  it('cuts a node off: not ready for writes (through BatchAppend an UnknownError), stale reads, not ready for reads that require the leader, a new leader elected', async () => {
    const old = cluster.leader!;
    const stream = `s-${randomUUID()}`;
    const first = randomUUID();
    const isolated = at(old.standIn.endpoint);
    await isolated.appendToStream(stream, event(first), { expectedRevision: NO_STREAM });
    cluster.isolate(old);
    assert.notEqual(cluster.leader, null);
    assert.notEqual(cluster.leader, old);
    await at(cluster.leader!.standIn.endpoint).appendToStream(stream, event(), { requiresLeader: true });
    await assert.rejects(isolated.appendToStream(stream, event()), (e: unknown) => e instanceof UnknownError && /Not Ready/.test(e.message));
    assert.deepEqual(await read(isolated, stream), [first]);
    await assert.rejects(read(isolated, stream, true), UnavailableError);
  });

  it('elects a new leader when the leader stops, which has forgotten the recent ids `any` appends were deduplicated by', async () => {
    const stream = `s-${randomUUID()}`;
    const id = randomUUID();
    const client = connect(cluster.url());
    await client.appendToStream(stream, event(id), { requiresLeader: true });
    await client.appendToStream(stream, event(id), { requiresLeader: true });
    assert.equal(cluster.log.head(stream), 0n);
    const old = cluster.stopLeader();
    assert.notEqual(cluster.leader, old);
    // The first call after the stop meets the dropped connection; the client then rediscovers the leader.
    await client
      .appendToStream(stream, event(id), { requiresLeader: true })
      .catch((e: unknown) => assert.ok(e instanceof UnavailableError || e instanceof CancelledError, String(e)));
    await client.appendToStream(stream, event(id), { requiresLeader: true });
    assert.ok(cluster.log.head(stream)! >= 1n, 'a repeat of an `any` append is written again on the new leader');
  });

  it('drops a repeat whose original the new leader has not indexed yet (answered by the 2 s timeout), and answers it once indexed', async () => {
    const stream = `s-${randomUUID()}`;
    const ids = [randomUUID()];
    const client = at(cluster.leader!.standIn.endpoint);
    const first = await client.appendToStream(stream, event(ids[0]), { expectedRevision: NO_STREAM });
    cluster.isolate(cluster.leader!);
    cluster.elect({ unindexed: 1 });
    const leader = at(cluster.leader!.standIn.endpoint);
    for (const node of cluster.nodes) node.standIn.gate.writeTimeoutMs = 200;
    await assert.rejects(leader.appendToStream(stream, event(ids[0]), { expectedRevision: NO_STREAM }), DeadlineExceededError);
    cluster.indexed();
    assert.deepEqual(await leader.appendToStream(stream, event(ids[0]), { expectedRevision: NO_STREAM }), first);
    assert.equal(cluster.log.head(stream), 0n);
  });
});
