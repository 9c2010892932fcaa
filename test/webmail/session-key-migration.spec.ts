import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { matchesSessionKey, sessionKey } from '../../src/webmail/sessions/session-key.ts';
import { openWebmailStores } from '../../src/webmail/webmail-stores.ts';
import { eachStoreLocation } from '../support/store-locations.ts';
import { storedSessionData } from '../support/stored-sessions.ts';

// Sessions stored by a build that kept ids and auth secrets in clear are hashed by the schema step, and
// stay logged in. (SQLite's step: test/shared/sqlite-schema-upgrades.spec.ts.)
describe('MongoDB webmail sessions stored in clear: hashed by the migration, still logged in', function () {
  this.timeout(30_000);
  eachStoreLocation((name, fixture) => {
    if (name === 'SQLite') return;
    describe(name, () => {
      let location: ReturnType<NonNullable<ReturnType<typeof fixture>>['fresh']>;
      before(function () {
        const found = fixture();
        if (!found) this.skip();
        location = found.fresh();
      });

      it('finds the old session by the id the browser holds, with its auth secret and compose ID; nothing in clear is left', async () => {
        const expires = Date.now() + 60_000;
        const client = await MongoClient.connect(location.mongodbUrl!);
        try {
          const db = client.db(location.mongoDatabase);
          await db.collection('schema_versions').insertOne({ _id: 'webmail-sessions' as never, version: 1 });
          const old = { requestToken: 'oldtoken', loginPageShown: false, username: 'olduser', mailSecret: null, lastComposeId: null, expiresAt: expires };
          await db.collection('webmail_sessions').insertMany([
            { _id: 'oldsession' as never, accountId: '9', authSecret: 'oldsecret', ...old },
            { _id: 'anonymous' as never, accountId: null, authSecret: null, ...old },
          ]);
          await db
            .collection('webmail_compose')
            .insertOne({ _id: '12345abc' as never, sessionId: 'oldsession', sending: false, defaults: { to: '', cc: '', subject: 'kept', body: '' } });
        } finally {
          await client.close();
        }
        for (const round of [1, 2]) {
          // Twice: a second process running the step again (mongo-migrations.ts) changes nothing.
          const stores = await openWebmailStores({ ...location, idleMillis: 60_000, rateLimit: { limit: 3, windowMillis: 60_000 } });
          try {
            const session = await stores.sessions.find('oldsession');
            assert.equal(session?.accountId, '9', `round ${round}`);
            assert.equal(matchesSessionKey('oldsecret', session?.authSecretHash ?? null), true);
            assert.equal((await stores.compose.find('oldsession', '12345abc'))?.defaults.subject, 'kept');
            assert.equal((await stores.sessions.find('anonymous'))?.authSecretHash, null);
          } finally {
            await stores.close();
          }
        }
        const stored = JSON.stringify(await storedSessionData(location));
        assert.ok(stored.includes(sessionKey('oldsession')) && stored.includes(sessionKey('oldsecret')), stored);
        assert.ok(!stored.includes('"oldsession"') && !stored.includes('oldsecret') && !stored.includes('"anonymous"'), stored);
      });
    });
  });
});
