import assert from 'node:assert/strict';
import pg from 'pg';
import { createClient } from 'redis';
import { FILTERS_CHANGED } from '../../src/notifications/notifier.ts';
import { newId } from '../../src/shared/ids.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What a message's subscriber found when it read the account's filters on a connection of its own, as Mastodon's streaming server does. */
interface Heard {
  readonly channel: string;
  readonly message: string;
  readonly phrases: Promise<string[]>;
}

describe('Mastodon mode: filters_changed goes out on Redis only once a fresh connection can read the rows', function () {
  this.timeout(120_000);
  const namespace = `cf-test-${newId()}`;
  let db: MastodonTestDatabase;
  let server: TestServer;
  let subscriber: ReturnType<typeof createClient>;
  const heard: Heard[] = [];

  const phrasesOf = async (accountId: string): Promise<string[]> => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query('SELECT phrase FROM custom_filters WHERE account_id = $1 ORDER BY id', [accountId])).rows.map((r) => r.phrase as string);
    } finally {
      await client.end();
    }
  };

  before(async function () {
    subscriber = createClient({ url: redisUrl, socket: { connectTimeout: 2000, reconnectStrategy: false } });
    subscriber.on('error', () => {});
    try {
      await subscriber.connect();
    } catch {
      console.log(`    (skipped: no Redis at ${redisUrl}; start one or set REDIS_URL to run this test)`);
      this.skip();
    }
    db = await MastodonTestDatabase.create();
    await subscriber.pSubscribe(`${namespace}:timeline:*`, (message, channel) => {
      const accountId = channel.split(':').at(-1)!;
      // Read at once, before anything else of this test runs: what Mastodon's streaming server would refetch.
      heard.push({ channel, message, phrases: phrasesOf(accountId) });
    });
    server = await TestServer.start({ MASTODON_DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_NAMESPACE: namespace });
  });
  after(async () => {
    await server?.close();
    await subscriber?.close();
    await db?.drop();
  });

  const onAccount = (accountId: string) =>
    heard.filter((h) => h.channel === `${namespace}:timeline:${accountId}` || h.channel === `${namespace}:timeline:system:${accountId}`);

  it('on timeline:<id> and timeline:system:<id>, after the commit’s rows, even when Mastodon’s tables lag the read models', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const created = await server.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'first', context: ['home'], keywords_attributes: [{ keyword: 'a' }] },
    });
    assert.equal(created.status, 200);
    await waitUntil(() => onAccount(user.accountId).length === 2, 'filters_changed on both channels');
    const first = onAccount(user.accountId);
    assert.deepEqual(first.map((h) => [h.channel, h.message]).sort(), [
      [`${namespace}:timeline:${user.accountId}`, FILTERS_CHANGED],
      [`${namespace}:timeline:system:${user.accountId}`, FILTERS_CHANGED],
    ]);
    for (const h of first) assert.deepEqual(await h.phrases, ['first']);

    // Hold the projection into Mastodon's tables back (its checkpoint row is written in every batch's
    // transaction), while the read models and the other announcers move on.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE content_filters.checkpoints IN SHARE ROW EXCLUSIVE MODE');
    try {
      const bus = server.listen();
      const updated = await server.request('PUT', `/api/v2/filters/${created.body.id}`, { token, json: { title: 'second' } });
      assert.equal(updated.status, 200);
      await waitUntil(() => bus.includes(`timeline.${user.accountId} ${FILTERS_CHANGED}`), 'the read models’ own announcement');
      await waitUntil(async () => {
        const { rows } = await db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE '%content_filters.checkpoints%'`,
          [db.name],
        );
        return rows[0].n > 0;
      }, 'the Mastodon projector to wait on the lock');
      // A Redis round trip: a message the announcer had published by now would have arrived.
      const marker = newId();
      const echoed = new Promise<void>((resolve) => void subscriber.subscribe(`${namespace}:marker`, () => resolve()));
      const publisher = subscriber.duplicate();
      publisher.on('error', () => {});
      await publisher.connect();
      await publisher.publish(`${namespace}:marker`, marker);
      await echoed;
      await publisher.close();
      assert.equal(onAccount(user.accountId).length, 2, 'nothing announced while Mastodon’s tables lack the commit');
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    await waitUntil(() => onAccount(user.accountId).length === 4, 'filters_changed once the rows are committed');
    for (const h of onAccount(user.accountId).slice(2)) assert.deepEqual(await h.phrases, ['second'], h.channel);
  });
});
