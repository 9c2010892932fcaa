import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IdempotencyStore, KeyedCommand } from '../../src/commands/idempotency/idempotency-store.ts';
import { openIdempotencyStore } from '../../src/stores.ts';
import { mongoUrlWithConcerns } from '../../src/shared/mongo-concerns.ts';
import { failCommandOff, failCommandOn, mongoStandIn, standInMissing, stepDown } from '../support/mongo-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const command = (name: string): KeyedCommand => ({ commandId: randomUUID(), startedAtMs: Date.now(), command: { name } });

/** Idempotency keys on the stand-in's replica set (mockupdb + mongomock, not a server) while its primary steps down. */
describe('Idempotency keys on a MongoDB replica set that steps down (issue 29)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing, { sessions: true });
  let store: IdempotencyStore;

  beforeEach(async function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    const mongodbUrl = mongoUrlWithConcerns(standIn.replicaSetUrl('&heartbeatFrequencyMS=500'), 'majority');
    store = await openIdempotencyStore({ dataDir: scratchDir(), mongodbUrl, mongoDatabase: `cf_keys_${randomUUID().slice(0, 8)}` });
  });

  afterEach(async () => {
    if (missing) return;
    for (const member of standIn.memberUrls()) await failCommandOff(member);
    await store?.close();
  });

  it('a step-down during the key write: one record, which every later claim answers, or a 503 and none', async () => {
    const key = { accountId: randomUUID(), scope: 'POST /api/v2/filters', key: randomUUID() };
    const held = await failCommandOn(await standIn.primaryUrl(), { failCommands: ['insert'], blockConnection: true, blockTimeMS: 1_000 }, 1);
    const first = command('first');
    const claiming = store.claim(key, first, Date.now()).then(
      (claim) => ({ claim }),
      (error: unknown) => ({ error }),
    );
    await held.entered();
    await stepDown(standIn.replicaSetUrl());
    const outcome = await claiming;
    const again = await store.claim(key, command('second'), Date.now());
    if ('claim' in outcome) {
      // Acknowledged (the driver retried the write on the new primary): the record stays, the later request repeats it.
      assert.equal(outcome.claim.repeated, false);
      assert.equal(again.repeated, true);
      assert.equal(again.keyed.commandId, first.commandId);
    } else {
      // Not acknowledged: the client was told to retry (503), and its retry claims the key anew.
      assert.equal((outcome.error as Error).name, 'StoreUnavailableError', String(outcome.error));
      assert.equal(again.repeated, false);
    }
    const third = await store.claim(key, command('third'), Date.now());
    assert.equal(third.repeated, true);
    assert.equal(third.keyed.commandId, again.repeated ? first.commandId : again.keyed.commandId);
  });

  it('NotWritablePrimary, InterruptedDueToReplStateChange, PrimarySteppedDown and ShutdownInProgress answer unavailable, never a fault', async () => {
    for (const errorCode of [10107, 11602, 189, 91]) {
      const primary = await standIn.primaryUrl();
      // Twice: the driver retries a retryable write once, and the second answer is the same.
      await failCommandOn(primary, { failCommands: ['insert', 'update', 'find', 'findAndModify'], errorCode }, 2);
      const key = { accountId: randomUUID(), scope: 's', key: randomUUID() };
      await assert.rejects(store.claim(key, command('x'), Date.now()), { name: 'StoreUnavailableError' }, `code ${errorCode}`);
      await failCommandOff(primary);
      assert.equal((await store.claim(key, command('y'), Date.now())).repeated, false);
    }
  });
});
