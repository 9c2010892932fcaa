import assert from 'node:assert/strict';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import { failoverProjector } from '../support/failover-projector.ts';
import { failCommandOn, hangBeforeWriteConcern, loseMajority, mongoStandIn, standInMissing, stepDown, stopReplication } from '../support/mongo-stand-in.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * A leased projector on the stand-in's replica set (primary, secondary, arbiter; mockupdb + mongomock,
 * not a server) with the production concerns (w: majority, majority reads, primary), while the primary
 * steps down or fails over (issue 29). The hung primary: mongo-hung-primary.spec.ts.
 */
describe('Projector on a MongoDB replica set that fails over (issue 29)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing, { sessions: true });
  const set = failoverProjector(standIn, missing);

  it('a step-down in the middle of a batch: the batch goes to the new primary, nothing parked or lost', async () => {
    await set.start();
    const before = await standIn.primaryUrl();
    const held = await failCommandOn(before, { failCommands: ['update'], blockConnection: true, blockTimeMS: 1_500 }, 1);
    const first = await set.append(3);
    await held.entered();
    await stepDown(standIn.replicaSetUrl());
    assert.notEqual(await standIn.primaryUrl(), before);
    await set.assertWhole(first);
    await set.assertWhole(await set.append(3));
  });

  it('a connection closed mid-batch, then ShutdownInProgress: retried, nothing parked', async () => {
    await set.start();
    const primary = await standIn.primaryUrl();
    const closing = await failCommandOn(primary, { failCommands: ['update', 'delete'], closeConnection: true }, 3);
    const first = await set.append(3);
    await closing.entered();
    const shuttingDown = await failCommandOn(primary, { failCommands: ['update', 'delete', 'find'], errorCode: 91 }, 6);
    const last = await set.append(3);
    await shuttingDown.entered(6);
    await set.assertWhole(last);
    assert.ok(first > 0n);
  });

  it('a step-down during a lease renewal: the holder keeps or takes the lease back, one writer, projecting on', async () => {
    await set.start();
    const before = await standIn.primaryUrl();
    const fenceBefore = (await set.reads().leaseHolder(FILTERS_LEASE))?.fence;
    const held = await failCommandOn(before, { failCommands: ['update'], blockConnection: true, blockTimeMS: 1_500 }, 1);
    const renewing = set.projector().renew();
    await held.entered();
    await stepDown(standIn.replicaSetUrl());
    await renewing;
    await waitUntil(async () => {
      await set.projector().renew();
      return set.projector().isLeader;
    }, 'the holder leading again on the new primary');
    const holder = await set.reads().leaseHolder(FILTERS_LEASE);
    assert.equal(holder?.owner, set.projector().owner);
    assert.ok(holder.fence! >= fenceBefore!, 'the fencing token never goes back');
    await set.assertWhole(await set.append(3));
  });

  it('a failover that rolls back what only the old primary held: a majority batch is never acknowledged, so redone', async () => {
    await set.start();
    await set.assertWhole(await set.append(2));
    await stopReplication(standIn.url(), true);
    // A batch's first write claims its checkpoint document: once that write is applied on the primary
    // alone (the secondary has stopped copying) and paused before its majority wait, the forced step-down
    // lands while the batch is unacknowledged, and rolls back what only the old primary held. Renewals
    // of the lease (another collection) are not held, so the held write is surely the batch's.
    const hanging = await hangBeforeWriteConcern(await standIn.primaryUrl(), ['checkpoints']);
    const last = await set.append(3);
    await hanging.entered();
    assert.ok(((await set.reads().checkpoint(FILTERS_PROJECTION)) ?? 0n) < last);
    await stepDown(standIn.replicaSetUrl(), true);
    await hanging.release();
    await set.assertWhole(last);
  });

  it('a majority of the set down (two of three members): no primary, the holder stops leading, nothing parked; all stored once they are back', async () => {
    await set.start();
    await set.assertWhole(await set.append(2));
    const alone = await standIn.primaryUrl();
    await loseMajority(alone, true);
    try {
      const last = await set.append(3);
      // Nothing can be written or read at the primary; renewals fail, and once its lease may have run out
      // (by the last time the store answered) the holder no longer claims to lead.
      await waitUntil(() => !set.projector().isLeader, 'the holder giving its claim up');
      assert.equal(set.projector().failure, null, 'an outage, not a fault');
      await loseMajority(alone, false);
      await set.assertWhole(last);
      assert.equal(set.projector().isLeader, true);
    } finally {
      await loseMajority(alone, false);
    }
  });
});
