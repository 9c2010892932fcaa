import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import type { LoginRateLimit } from '../../src/webmail/sessions/login-rate-limit.ts';
import { MongoLoginRateLimit } from '../../src/webmail/sessions/mongo-login-rate-limit.ts';
import { SqliteLoginRateLimit } from '../../src/webmail/sessions/sqlite-login-rate-limit.ts';
import { openSessionDatabase } from '../../src/webmail/sessions/sqlite-sessions-schema.ts';
import { eachStoreLocation, type LocationFixture } from '../support/store-locations.ts';

const WINDOW = 60_000;

/** A login rate limit on a fresh location, a way to count its windows, and how to let it go. */
async function openAt(fixture: LocationFixture, now: () => number): Promise<{ limit: LoginRateLimit; rows(): Promise<number>; close(): Promise<void> }> {
  const location = fixture.fresh();
  const policy = { limit: 3, windowMillis: WINDOW, now };
  if (!location.mongodbUrl) {
    const db = openSessionDatabase(location.dataDir);
    const rows = async () => db.prepare<[], { n: number }>('SELECT count(*) AS n FROM login_failures').get()!.n;
    return { limit: new SqliteLoginRateLimit(db, policy), rows, close: async () => void db.close() };
  }
  const client = await MongoClient.connect(location.mongodbUrl);
  const db = client.db(location.mongoDatabase);
  return { limit: new MongoLoginRateLimit(db, policy), rows: () => db.collection('login_failures').countDocuments(), close: () => client.close() };
}

describe('webmail login failures: names anyone may send are kept about one window only', function () {
  this.timeout(60_000);
  eachStoreLocation((name, fixture) => {
    it(`drops the windows that are over at the next failure, keeping every lock that still holds (${name})`, async function () {
      const location = fixture();
      if (!location) return this.skip();
      let now = 1_000_000;
      const store = await openAt(location, () => now);
      try {
        for (let i = 0; i < 200; i += 1) await store.limit.recordFailure(`local:stranger${i}`);
        for (let i = 0; i < 3; i += 1) await store.limit.recordFailure('local:bob');
        assert.equal(await store.rows(), 201);
        now += WINDOW - 1;
        await store.limit.recordFailure('local:carol');
        assert.equal(await store.limit.isLocked('local:bob'), true);
        now += 1;
        await store.limit.recordFailure('local:dave');
        // Every window that began a whole window ago is over: only carol's and dave's are left.
        assert.equal(await store.rows(), 2);
        assert.equal(await store.limit.isLocked('local:bob'), false);
      } finally {
        await store.close();
      }
    });
  });
});
