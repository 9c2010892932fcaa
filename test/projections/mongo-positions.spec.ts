import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Long, MongoClient } from 'mongodb';
import { belowPosition, fromStoredPosition, toStoredPosition } from '../../src/projections/stores/mongo-positions.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';

describe('MongoDB positions', () => {
  it('are fixed-width strings whose order is numeric order, up to 2^128', () => {
    const positions = [0n, 9n, 10n, 2n ** 63n, 2n ** 64n + 5n, 2n ** 128n - 1n];
    const stored = positions.map(toStoredPosition);
    assert.deepEqual([...stored].sort(), stored);
    assert.deepEqual(stored.map(fromStoredPosition), positions);
    assert.equal(fromStoredPosition(Long.fromBigInt(42n)), 42n);
    assert.throws(() => toStoredPosition(-1n), RangeError);
    assert.throws(() => toStoredPosition(2n ** 128n), RangeError);
  });

  // A checkpoint written as a Long by an older version must be replaced, not block the guarded upsert.
  const missing = process.env.MONGODB_URL ? null : standInMissing();
  const standIn = process.env.MONGODB_URL ? null : mongoStandIn(missing);
  it('let a guarded update replace a checkpoint kept as a Long by older versions, and refuse a lower one', async function () {
    if (missing) {
      console.log(`      (skipped: the MongoDB stand-in cannot run: ${missing})`);
      this.skip();
    }
    const client = await MongoClient.connect(process.env.MONGODB_URL ?? standIn!.url());
    const db = client.db(`cf_pos_${randomUUID().slice(0, 8)}`);
    try {
      const checkpoints = db.collection<{ _id: string; position: unknown }>('checkpoints');
      await checkpoints.insertOne({ _id: 'filters', position: Long.fromBigInt(7n) });
      const advance = (position: bigint) =>
        checkpoints.updateOne({ _id: 'filters', position: belowPosition(position) }, { $set: { position: toStoredPosition(position) } });
      assert.equal((await advance(2n ** 64n + 1n)).modifiedCount, 1);
      assert.equal((await advance(2n ** 64n)).modifiedCount, 0);
      assert.equal((await checkpoints.findOne({ _id: 'filters' }))?.position, toStoredPosition(2n ** 64n + 1n));
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });
});
