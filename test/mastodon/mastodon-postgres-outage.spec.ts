import assert from 'node:assert/strict';
import { freshFilterRows, rowsOfAnswer, withoutXmin } from '../support/mastodon-fresh-rows.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { OwnPostgres, PG_BIN } from '../support/own-postgres.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('Mastodon mode: PostgreSQL stopped mid-run (a cluster of the test’s own)', function () {
  this.timeout(300_000);
  let cluster: OwnPostgres;
  let db: MastodonTestDatabase;
  let server: TestServer;

  before(async function () {
    if (!PG_BIN) {
      console.log('    (skipped: no PostgreSQL binaries under /usr/lib/postgresql; apt-get install postgresql to run it)');
      this.skip();
    }
    cluster = await OwnPostgres.start();
    db = await MastodonTestDatabase.create(cluster.adminUrl);
    server = await TestServer.start({ MASTODON_DATABASE_URL: db.url });
  });
  after(async () => {
    await server?.close();
    await db?.pool.end().catch(() => {});
    await cluster?.remove();
  });

  const head = async () => (await server.service.stores.events.readAll({ after: null, limit: 1_000_000 })).at(-1)!.position;
  const health = async () => server.request('GET', '/health');

  it('writes still land in the log, /health says what is behind, and Mastodon’s tables catch up once it is back', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const before = await server.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'before', context: ['home'], keywords_attributes: [{ keyword: 'a' }] },
    });
    assert.equal(before.status, 200);
    assert.equal(await server.service.projector!.mastodonCaughtUp(await head(), 60_000), true);
    assert.equal((await freshFilterRows(db.url, before.body.id)).filter?.phrase, 'before');

    await cluster.stop();
    // The token was read from Mastodon a moment ago: nothing can revoke it while its database is down.
    const during = await server.request('PUT', `/api/v2/filters/${before.body.id}`, {
      token,
      json: { title: 'during', keywords_attributes: [{ keyword: 'b' }] },
    });
    assert.equal(during.status, 200, JSON.stringify(during.body));
    const another = await server.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'another', context: ['public'], keywords_attributes: [{ keyword: 'c' }] },
    });
    assert.equal(another.status, 200, JSON.stringify(another.body));
    const written = await head();
    const logged = await server.service.stores.events.readAll({ after: null, limit: 1_000_000 });
    assert.ok(
      logged.some((e) => e.streamName === `filter-${another.body.id}`),
      'the write is in the log',
    );

    await waitUntil(async () => {
      const report = (await health()).body;
      return report.problems.some((p: { reason: string }) => p.reason === 'mastodon_projection_failing');
    }, '/health to name the failing projection into Mastodon’s tables');
    const away = await health();
    assert.equal(away.status, 503);
    assert.equal(away.body.mastodonDatabase, 'down');
    assert.deepEqual(away.body.mastodonProjection, { checkpoint: null, lagSeconds: null }, 'where it stands is unknown while it is away');
    assert.deepEqual(away.body.problems.map((p: { reason: string }) => p.reason).sort(), ['mastodon_database_unreachable', 'mastodon_projection_failing']);
    assert.equal(away.body.projection.lagSeconds, 0, 'the read models are not held back');

    await cluster.resume();
    assert.equal(await server.service.projector!.mastodonCaughtUp(written, 120_000), true, 'caught up once PostgreSQL is back');
    for (const id of [before.body.id, another.body.id]) {
      const answer = await server.request('GET', `/api/v2/filters/${id}`, { token });
      assert.deepEqual(withoutXmin(await freshFilterRows(db.url, id)), rowsOfAnswer(answer.body, user.accountId));
    }
    await waitUntil(async () => (await health()).status === 200, '/health to be 200 again', 60_000);
    const back = (await health()).body;
    assert.deepEqual([back.mastodonDatabase, back.mastodonProjection.lagSeconds], ['up', 0]);
    assert.ok(BigInt(back.mastodonProjection.checkpoint) >= written);
  });
});
