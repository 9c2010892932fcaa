import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { AccessDeniedError, UnavailableError } from '@eventstore/db-client';
import Koa from 'koa';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { translateEsdbError } from '../../src/events/esdb-errors.ts';
import { EventStoreUnavailableError } from '../../src/events/event-store.ts';
import { jsonErrors } from '../../src/http/http-errors.ts';
import { mastodonQuery } from '../../src/mastodon/mastodon-query.ts';
import { readModelCall } from '../../src/projections/stores/mongo-errors.ts';
import { ReadStoreUnavailableError } from '../../src/projections/stores/read-store.ts';
import { translateSqliteError } from '../../src/projections/stores/sqlite-errors.ts';
import { RedisRateLimitStore } from '../../src/rate-limits/redis-rate-limit-store.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { mongoCall } from '../../src/shared/mongo-connection.ts';
import { sharedStoreCall } from '../../src/shared/sqlite-busy.ts';
import { isStoreUnavailable, StoreUnavailableError } from '../../src/shared/store-unavailable.ts';

const sqliteError = (code: string) => Object.assign(new Error(`sqlite says ${code}`), { code });
const failing = (error: Error) => () => Promise.reject(error);

/** What each driver's one translator makes of an outage, and the store the 503 names. */
async function outages(): Promise<{ driver: string; error: unknown; store: string }[]> {
  const redis = await RedisRateLimitStore.connect('redis://127.0.0.1:1');
  const caught = async (call: () => Promise<unknown>) =>
    call().then(
      () => assert.fail('expected a failure'),
      (error: unknown) => error,
    );
  try {
    return [
      {
        driver: 'SQLite, a shared store',
        error: await caught(() => sharedStoreCall('accounts', () => Promise.reject(sqliteError('SQLITE_IOERR')), 50, 'the OAuth store')),
        store: 'the OAuth store',
      },
      { driver: 'SQLite, the read models', error: translateSqliteError(sqliteError('SQLITE_CORRUPT')), store: 'the read models' },
      {
        driver: 'MongoDB, a shared store',
        error: await caught(() => mongoCall('accounts', failing(new MongoNetworkError('gone')))),
        store: 'the account store',
      },
      { driver: 'MongoDB, the read models', error: await caught(() => readModelCall(failing(new MongoNetworkError('gone')))), store: 'the read models' },
      { driver: 'EventStoreDB', error: translateEsdbError(new UnavailableError()), store: 'the event store' },
      {
        driver: 'PostgreSQL',
        error: await caught(() => mastodonQuery({ query: failing(new Error('ECONNREFUSED')) } as never, 'SELECT 1', [])),
        store: "Mastodon's database",
      },
      {
        driver: 'Redis',
        error: await caught(() => redis.incrementAll([{ key: 'k', by: 1, expiresAtMs: Date.now() + 1000 }])),
        store: 'the rate-limit counters',
      },
    ];
  } finally {
    await redis.close();
  }
}

describe('StoreUnavailableError: one "unavailable", one translator per driver', () => {
  it("is what every driver's translator makes of an outage, naming its store, matched with instanceof", async () => {
    for (const { driver, error, store } of await outages()) {
      assert.ok(error instanceof StoreUnavailableError, `${driver}: ${String(error)}`);
      assert.equal(isStoreUnavailable(error, store), true, driver);
      assert.equal(isStoreUnavailable(error, 'elsewhere'), false, driver);
      assert.equal(error.store, store, driver);
      assert.equal(error.reason, 'unreachable', driver);
    }
  });

  it("keeps the event store's and the read models' own classes, as subclasses", () => {
    const denied = translateEsdbError(new AccessDeniedError());
    assert.ok(denied instanceof EventStoreUnavailableError);
    assert.ok(denied instanceof StoreUnavailableError);
    assert.equal(denied.reason, 'access_denied');
    assert.equal(denied.name, 'EventStoreUnavailableError');
    const read = translateSqliteError(sqliteError('SQLITE_BUSY'));
    assert.ok(read instanceof ReadStoreUnavailableError);
    assert.equal(read.name, 'ReadStoreUnavailableError');
    assert.match(read.message, /^read models \(SQLite\): sqlite says SQLITE_BUSY$/);
  });

  it('is told by its structural code, so also when its class comes from another module instance', () => {
    const stranger = Object.assign(new Error('from a second copy of the module'), {
      name: 'EventStoreUnavailableError',
      errorCode: 'STORE_UNAVAILABLE',
      store: 'the event store',
    });
    assert.ok(isStoreUnavailable(stranger, 'the event store'));
    assert.ok(!isStoreUnavailable(Object.assign(new Error('no code'), { store: 'the event store' })));
    assert.ok(!isStoreUnavailable({ errorCode: 'STORE_UNAVAILABLE', store: 'x' }), 'not an Error');
  });

  it('lets every error that is not unavailability through as it is', async () => {
    const constraint = sqliteError('SQLITE_CONSTRAINT_UNIQUE');
    assert.equal(translateSqliteError(constraint), constraint);
    const duplicate = new MongoServerError({ code: 11000, errmsg: 'duplicate key' });
    await assert.rejects(mongoCall('accounts', failing(duplicate)), (error) => error === duplicate);
    await assert.rejects(readModelCall(failing(duplicate)), (error) => error === duplicate);
    const plain = new TypeError('a bug');
    await assert.rejects(sharedStoreCall('accounts', failing(plain)), (error) => error === plain);
  });

  it('is answered 503 naming its store by a real listening server, whatever the driver', async () => {
    const found = await outages();
    const app = new Koa();
    app.use(jsonErrors(silentLogger));
    app.use((ctx) => {
      throw found[Number(ctx.path.slice(1))]!.error;
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      for (const [index, { driver, store }] of found.entries()) {
        const response = await fetch(`http://127.0.0.1:${port}/${index}`);
        assert.equal(response.status, 503, driver);
        assert.equal(response.headers.get('retry-after'), '5', driver);
        assert.deepEqual(await response.json(), { error: `Service unavailable: ${store} cannot be reached` }, driver);
      }
    } finally {
      server.close();
    }
  });
});
