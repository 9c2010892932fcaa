import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../../src/accounts/account-store.ts';
import { openAccountStore } from '../../src/stores.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { failCommandOff, failCommandOn, mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ALL_COMMANDS = ['find', 'insert', 'update', 'delete', 'aggregate', 'findAndModify'];

/** What a node answers while it shuts down or hands the primary role on (mongod error_codes.yml). */
const NOT_READY = [
  { name: '11600 InterruptedAtShutdown', errorCode: 11600 },
  { name: '91 ShutdownInProgress', errorCode: 91 },
  { name: '10107 NotWritablePrimary', errorCode: 10107 },
  { name: '189 PrimarySteppedDown', errorCode: 189 },
  { name: '11602 InterruptedDueToReplStateChange', errorCode: 11602 },
  { name: 'any code labelled RetryableWriteError', errorCode: 8, errorLabels: ['RetryableWriteError'] },
  { name: 'any code labelled ResetPool', errorCode: 8, errorLabels: ['ResetPool'] },
];

/** Against the wire-protocol stand-in (mockupdb + mongomock, not a server) and its failCommand fail point. */
describe('MongoDB answers of a node that is not ready count as unavailable (issue 23, defect 8)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  let reads: MongoReadStore;
  let accounts: AccountStore;

  before(async function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    const database = `cf_${randomUUID().slice(0, 8)}`;
    reads = await MongoReadStore.connect(standIn.url(), database);
    accounts = await openAccountStore({ dataDir: scratchDir(), mongodbUrl: standIn.url(), mongoDatabase: database });
  });

  after(async () => {
    await reads?.close();
    await accounts?.close();
  });

  afterEach(async () => {
    if (!missing) await failCommandOff(standIn.url());
  });

  for (const answer of NOT_READY) {
    it(`${answer.name}: the read models and the shared stores say unavailable, not failed`, async () => {
      await failCommandOn(standIn.url(), { ...answer, failCommands: ALL_COMMANDS });
      await assert.rejects(reads.listFilters('1'), { name: 'ReadStoreUnavailableError' });
      await assert.rejects(reads.applyBatch({ projection: `p_${randomUUID()}`, position: 1n, views: [] }), { name: 'ReadStoreUnavailableError' });
      await assert.rejects(accounts.findAccount('alice'), { name: 'StoreUnavailableError' });
    });
  }

  it('an error about the request itself (2 BadValue) stays what it is', async () => {
    await failCommandOn(standIn.url(), { errorCode: 2, failCommands: ALL_COMMANDS });
    await assert.rejects(reads.listFilters('1'), (error: Error) => error.name === 'MongoServerError');
    await assert.rejects(accounts.findAccount('alice'), (error: Error) => error.name === 'MongoServerError');
  });

  it('serves again once the node is back', async () => {
    await failCommandOn(standIn.url(), { errorCode: 91, failCommands: ALL_COMMANDS });
    await assert.rejects(reads.listFilters('1'), { name: 'ReadStoreUnavailableError' });
    await failCommandOff(standIn.url());
    assert.deepEqual(await reads.listFilters('1'), []);
  });
});
