import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient, MongoError } from 'mongodb';
import { mongoUrlWithConcerns, type MongoWriteConcern } from '../../src/shared/mongo-concerns.ts';
import { isMongoUnavailable } from '../../src/shared/mongo-unavailable.ts';
import { failCommandOff, failCommandOn, mongoStandIn, standInMissing, stepDown, stopReplication } from '../support/mongo-stand-in.ts';

/**
 * How the real Node driver (node_modules/mongodb) meets a replica set that fails over, against the
 * stand-in's primary, secondary and arbiter: what it throws, and whether an acknowledged write stays.
 */
describe('MongoDB replica set: failover as the driver sees it (stand-in: mockupdb + mongomock, not a server)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing, { sessions: true });
  const clients: MongoClient[] = [];

  const connect = async (w: MongoWriteConcern, query = '') => {
    const client = await MongoClient.connect(mongoUrlWithConcerns(standIn.replicaSetUrl(`&heartbeatFrequencyMS=500${query}`), w));
    clients.push(client);
    return client.db(`cf_rs_${randomUUID().slice(0, 8)}`).collection<{ _id: string; n?: number }>('things');
  };

  before(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
  });

  afterEach(async () => {
    if (missing) return;
    await stopReplication(standIn.url(), false);
    for (const member of standIn.memberUrls()) await failCommandOff(member);
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  it('finds the primary among the members, and the new one after a step-down', async () => {
    const things = await connect('majority');
    await things.insertOne({ _id: 'before' });
    await stepDown(standIn.replicaSetUrl());
    // A retryable write: the driver retries once on the primary it learns of after NotWritablePrimary.
    await things.insertOne({ _id: 'after' });
    assert.deepEqual(
      (await things.find().sort({ _id: 1 }).toArray()).map((d) => d._id),
      ['after', 'before'],
    );
  });

  it('w:1 (the default of a set with an arbiter): an acknowledged write is rolled back by a failover', async () => {
    const things = await connect(1);
    await things.insertOne({ _id: 'kept' });
    await stopReplication(standIn.url(), true);
    const acknowledged = await things.insertOne({ _id: 'lost' });
    assert.equal(acknowledged.acknowledged, true);
    await stepDown(standIn.replicaSetUrl(), true);
    assert.deepEqual(
      (await things.find().toArray()).map((d) => d._id),
      ['kept'],
      'the acknowledged write is gone',
    );
  });

  it('w:majority: the same write is never acknowledged, and the error says unavailable', async () => {
    const things = await connect('majority');
    await things.insertOne({ _id: 'kept' });
    await stopReplication(standIn.url(), true);
    const waiting = things.insertOne({ _id: 'unconfirmed' }).then(
      () => null,
      (error: unknown) => error,
    );
    // Majority reads do not see it while only the primary holds it.
    assert.equal(await things.findOne({ _id: 'unconfirmed' }), null);
    await stepDown(standIn.replicaSetUrl(), true);
    const error = await waiting;
    // The driver retries the write once on the new primary (a retryable write), where it is confirmed:
    // either way nothing that was acknowledged is missing.
    if (error === null) assert.notEqual(await things.findOne({ _id: 'unconfirmed' }), null, 'acknowledged, so kept');
    else assert.equal(isMongoUnavailable(error), true, error instanceof Error ? error.message : 'not an Error');
    assert.notEqual(await things.findOne({ _id: 'kept' }), null);
  });

  it('a hung primary past socketTimeoutMS: bulkWrite throws a MongoBulkWriteError without code or label, counted unavailable', async () => {
    // Without retryable writes (retryWrites=false, or a write the driver may not retry) nothing labels it.
    const things = await connect('majority', '&socketTimeoutMS=500&retryWrites=false');
    await things.insertOne({ _id: 'a', n: 0 });
    await failCommandOn(await standIn.primaryUrl(), { failCommands: ['update'], blockConnection: true, blockTimeMS: 2_000 }, 2);
    const error = await things.bulkWrite([{ updateMany: { filter: { _id: 'a' }, update: { $inc: { n: 1 } } } }]).catch((e: unknown) => e);
    assert.ok(error instanceof MongoError);
    assert.equal(error.name, 'MongoBulkWriteError');
    assert.equal(error.code, undefined);
    assert.deepEqual(error.errorLabels, []);
    assert.equal(isMongoUnavailable(error), true);
  });

  it('a connection closed in the middle of a batch, and a writeConcernError, are unavailable', async () => {
    const things = await connect('majority');
    await failCommandOn(await standIn.primaryUrl(), { failCommands: ['update'], closeConnection: true }, 2);
    const closed = await things.bulkWrite([{ updateMany: { filter: {}, update: { $set: { n: 1 } } } }]).catch((e: unknown) => e);
    assert.equal(isMongoUnavailable(closed), true, String(closed));
    await failCommandOn(
      await standIn.primaryUrl(),
      { failCommands: ['insert'], writeConcernError: { code: 64, codeName: 'WriteConcernTimeout', errmsg: 'waiting for replication timed out' } },
      1,
    );
    const unconfirmed = await things.insertOne({ _id: randomUUID() }).catch((e: unknown) => e);
    assert.equal((unconfirmed as Error).name, 'MongoWriteConcernError');
    assert.equal(isMongoUnavailable(unconfirmed), true);
  });
});
