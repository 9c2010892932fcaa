import { failoverProjector, SOCKET_TIMEOUT_MS } from '../support/failover-projector.ts';
import { failCommandOn, mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';

/**
 * A leased projector on the stand-in's replica set (mockupdb + mongomock, not a server) whose primary
 * hangs past socketTimeoutMS (issue 29): the outage must never park a commit.
 */
describe('Projector through a hung MongoDB primary (issue 29)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing, { sessions: true });
  const set = failoverProjector(standIn, missing);

  // With retryWrites=false (an operator's choice, or a server without sessions) nothing labels the
  // timeout: the driver throws a MongoBulkWriteError with no code and no label around it. With retryable
  // writes the driver labels it RetryableWriteError. Either way it is an outage, not a fault.
  for (const query of ['&retryWrites=false', '']) {
    it(`a hung primary past socketTimeoutMS parks no commit (${query || 'retryable writes'})`, async () => {
      await set.start(query);
      // Deletes go out in bulkWrites with deleteMany, which the driver never retries; two per try of a
      // commit (v1 records and statuses), so 12 outlast the five tries after which a fault is parked.
      const hung = await failCommandOn(await standIn.primaryUrl(), { failCommands: ['delete'], blockConnection: true, blockTimeMS: SOCKET_TIMEOUT_MS * 3 }, 12);
      const last = await set.append(6);
      await hung.entered();
      await set.assertWhole(last);
    });
  }
});
