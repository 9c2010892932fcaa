import assert from 'node:assert/strict';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { filterTablesSnapshot, insertMastodonFilter, mastodonShows } from '../support/mastodon-filter-rows.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

/** Events in the log, to show a second import appended none. */
async function logLength(server: TestServer): Promise<number> {
  let count = 0;
  let after: bigint | null = null;
  for (;;) {
    const page = await server.service.stores.events.readAll({ after, limit: 1000 });
    if (page.length === 0) return count;
    count += page.length;
    after = page.at(-1)!.position;
  }
}

describe('mastodon import: the filters Mastodon holds, into the log with their ids', function () {
  this.timeout(180_000);
  let db: MastodonTestDatabase;
  let server: TestServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    db = await MastodonTestDatabase.create();
    env = { DATA_DIR: scratchDir(), MASTODON_DATABASE_URL: db.url };
    server = await TestServer.start(env);
  });
  afterEach(async () => {
    await server?.close();
    await db?.drop();
  });

  const importOnce = () => runCli(['mastodon', 'import'], env);

  /** Waits until the API lists `count` v2 filters for the token (the running service's projector picks the import up). */
  const listed = async (token: string, count: number) => {
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).body.length === count, `${count} filters listed`);
  };

  it('imports every filter once, with Mastodon’s ids, and they read back through v1 and v2 as Mastodon shows them', async () => {
    const alice = await db.user();
    const bob = await db.user();
    const spoilers = await insertMastodonFilter(db, alice, {
      phrase: 'Spoilers',
      context: ['home', 'public', 'thread'],
      action: 1,
      expiresAt: "now() AT TIME ZONE 'UTC' + interval '3 days 7 seconds 123457 microseconds'",
      keywords: ['finale', { keyword: 'season 4', wholeWord: false }],
      statuses: 2,
    });
    const blurred = await insertMastodonFilter(db, alice, { phrase: 'Blur', context: ['account'], action: 2, keywords: [], statuses: 1 });
    const plain = await insertMastodonFilter(db, bob, { phrase: 'Politics', keywords: ['election'] });
    const before = await filterTablesSnapshot(db);

    const first = await importOnce();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.split('\n').filter(Boolean), [
      `imported filter ${spoilers.id} (account ${alice.accountId}): 2 keywords, 2 statuses`,
      `imported filter ${blurred.id} (account ${alice.accountId}): 0 keywords, 1 status`,
      `imported filter ${plain.id} (account ${bob.accountId}): 1 keyword, 0 statuses`,
    ]);
    assert.equal(first.stderr, "mastodon import: 3 imported, 0 already in the log, 0 skipped, of 3 filters in Mastodon's tables\n");

    const token = await db.token(alice, 'read');
    await listed(token, 2);
    const shows = await mastodonShows(db, alice.accountId);
    assert.deepEqual((await server.request('GET', '/api/v2/filters', { token })).body, shows.v2);
    assert.deepEqual((await server.request('GET', '/api/v1/filters', { token })).body, shows.v1);
    assert.deepEqual((await server.request('GET', `/api/v2/filters/${spoilers.id}`, { token })).body, shows.v2[0]);
    assert.deepEqual((await server.request('GET', `/api/v1/filters/${spoilers.keywordIds[1]}`, { token })).body, shows.v1[1]);
    const statuses = await server.request('GET', `/api/v2/filters/statuses/${spoilers.filterStatusIds[0]}`, { token });
    assert.equal(statuses.body.id, spoilers.filterStatusIds[0]);
    // Another account's imported filter is that account's alone.
    assert.equal((await server.request('GET', `/api/v2/filters/${plain.id}`, { token })).status, 404);

    const created = (await server.service.stores.events.readStream(`filter-${spoilers.id}`))[0]!;
    const metadata = created.metadata as Record<string, any>;
    assert.equal(metadata.accountId, alice.accountId);
    assert.equal(metadata.apiVersion, 'cli');
    assert.equal(metadata.imported.source, 'mastodon');
    assert.deepEqual(
      metadata.imported.rows.map((r: { table: string; id: string }) => [r.table, r.id]),
      [['custom_filters', spoilers.id]],
    );
    const times = await db.pool.query(`SELECT floor(extract(epoch FROM created_at) * 1000)::float8 AS c FROM custom_filters WHERE id = $1`, [spoilers.id]);
    assert.equal((created.data as { createdAt: string }).createdAt, new Date(times.rows[0].c).toISOString());

    const length = await logLength(server);
    const again = await importOnce();
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(again.stdout.split('\n').filter(Boolean), [
      `already in the log: filter ${spoilers.id} (account ${alice.accountId})`,
      `already in the log: filter ${blurred.id} (account ${alice.accountId})`,
      `already in the log: filter ${plain.id} (account ${bob.accountId})`,
    ]);
    assert.equal(await logLength(server), length, 'a second import appends nothing');
    assert.equal(await filterTablesSnapshot(db), before, "Mastodon's rows are left as they were");

    const verified = await runCli(['verify', '--read-models'], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stderr, /read models match the log/);
  });

  it('a filter deleted through the API after its import is not brought back by the next one', async () => {
    const alice = await db.user();
    const filter = await insertMastodonFilter(db, alice, { keywords: ['one', 'two'], statuses: 1 });
    assert.equal((await importOnce()).code, 0);
    const token = await db.token(alice);
    await listed(token, 1);
    assert.equal((await server.request('DELETE', `/api/v2/filters/${filter.id}`, { token })).status, 200);
    // The projector deletes the filter's rows from all three tables, as Mastodon's own delete would.
    const left = `SELECT (SELECT count(*) FROM custom_filters WHERE id = $1::bigint) + (SELECT count(*) FROM custom_filter_keywords WHERE custom_filter_id = $1::bigint)
                       + (SELECT count(*) FROM custom_filter_statuses WHERE custom_filter_id = $1::bigint) AS n`;
    await waitUntil(async () => Number((await db.pool.query(left, [filter.id])).rows[0].n) === 0, "the deleted filter's rows gone from Mastodon's tables");
    const length = await logLength(server);
    const again = await importOnce();
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '', 'the next import says nothing of the deleted filter');
    assert.equal(again.stderr, "mastodon import: 0 imported, 0 already in the log, 0 skipped, of 0 filters in Mastodon's tables\n");
    assert.equal(await logLength(server), length, 'the next import appends nothing');
    assert.equal(Number((await db.pool.query(left, [filter.id])).rows[0].n), 0, 'nor brings its rows back');
    assert.deepEqual((await server.request('GET', '/api/v2/filters', { token })).body, []);
    assert.equal((await server.request('GET', `/api/v2/filters/${filter.id}`, { token })).status, 404);
  });

  it('writes through the API keep working on imported filters, with Mastodon’s ids', async () => {
    const alice = await db.user();
    const filter = await insertMastodonFilter(db, alice, { keywords: ['one', 'two'] });
    assert.equal((await importOnce()).code, 0);
    const token = await db.token(alice);
    await listed(token, 1);
    const updated = await server.request('PUT', `/api/v2/filters/${filter.id}`, {
      token,
      json: { title: 'Renamed', keywords_attributes: [{ id: filter.keywordIds[0], _destroy: true }, { keyword: 'three' }] },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.title, 'Renamed');
    assert.deepEqual(
      updated.body.keywords.map((k: { id: string; keyword: string }) => [k.id === filter.keywordIds[1], k.keyword]),
      [
        [true, 'two'],
        [false, 'three'],
      ],
    );
  });
});
