import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openAccountStore } from '../../src/stores.ts';
import { mongoAccountsSchema } from '../../src/accounts/mongo-accounts-schema.ts';
import { SCHEMA_VERSIONS } from '../../src/shared/mongo-migrations.ts';
import { latestVersion } from '../../src/shared/schema-migrations.ts';
import { mongoMailSchema } from '../../src/webmail/mail/mongo-mail-schema.ts';
import { mongoWebmailSchema } from '../../src/webmail/sessions/mongo-webmail-schema.ts';
import { openWebmailStores } from '../../src/webmail/webmail-stores.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const policy = { limit: 3, windowMillis: 60_000 };

/** Against the wire-protocol stand-in (mockupdb + mongomock, not a server). */
describe('MongoDB account and webmail stores: schema versions and driver errors (against the stand-in)', function () {
  this.timeout(20_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  before(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
  });
  const where = () => ({ dataDir: scratchDir(), mongodbUrl: standIn.url(), mongoDatabase: `cf_${randomUUID().slice(0, 8)}` });

  it('records each schema version in schema_versions, and refuses a database a newer build wrote', async () => {
    const location = where();
    await (await openAccountStore(location)).close();
    await (await openWebmailStores({ ...location, idleMillis: 1000, rateLimit: policy })).close();
    const client = await MongoClient.connect(standIn.url());
    try {
      const versions = client.db(location.mongoDatabase).collection<{ _id: string; version: number }>(SCHEMA_VERSIONS);
      const found = Object.fromEntries((await versions.find({}).toArray()).map((doc) => [doc._id, doc.version]));
      assert.deepEqual(found, {
        accounts: latestVersion(mongoAccountsSchema),
        'webmail-sessions': latestVersion(mongoWebmailSchema),
        mail: latestVersion(mongoMailSchema),
      });
      await versions.updateOne({ _id: 'accounts' }, { $set: { version: 99 } });
    } finally {
      await client.close();
    }
    await assert.rejects(openAccountStore(location), { name: 'SchemaTooNewError' });
  });

  it('turns a connection that is gone into StoreUnavailableError, for accounts and for every webmail store', async () => {
    const location = where();
    const accounts = await openAccountStore(location);
    const webmail = await openWebmailStores({ ...location, idleMillis: 1000, rateLimit: policy });
    await accounts.close();
    await webmail.close();
    const unavailable = { name: 'StoreUnavailableError' };
    await assert.rejects(accounts.findAccount('alice'), unavailable);
    await assert.rejects(webmail.sessions.find('abc'), unavailable);
    await assert.rejects(webmail.compose.claim('abc', 'def'), unavailable);
    await assert.rejects(webmail.mail.unreadCount('1', 'INBOX'), unavailable);
    await assert.rejects(webmail.rateLimit.isLocked('1'), unavailable);
  });
});
