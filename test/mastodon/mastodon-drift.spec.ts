import assert from 'node:assert/strict';
import { MastodonTestDatabase, snowflake, type MastodonUser } from '../support/mastodon-database.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

describe('Mastodon mode: verify --read-models compares Mastodon’s filter tables with the log', function () {
  this.timeout(180_000);
  const dir = scratchDir();
  let db: MastodonTestDatabase;
  let server: TestServer;
  let alice: MastodonUser;
  let bob: MastodonUser;
  const filters: { id: string; keywords: { id: string }[] }[] = [];
  const cli = () => runCli(['verify', '--read-models'], { DATA_DIR: dir, MASTODON_DATABASE_URL: db.url });

  before(async () => {
    db = await MastodonTestDatabase.create();
    server = await TestServer.start({ DATA_DIR: dir, MASTODON_DATABASE_URL: db.url });
    [alice, bob] = [await db.user(), await db.user()];
    const status = snowflake();
    await db.pool.query(`INSERT INTO statuses (id, text, created_at, updated_at, account_id) VALUES ($1, 'hi', now(), now(), $2)`, [status, alice.accountId]);
    for (const [user, title] of [
      [alice, 'one'],
      [alice, 'two'],
      [bob, 'three'],
    ] as const) {
      const token = await db.token(user);
      const created = await server.request('POST', '/api/v2/filters', {
        token,
        json: { title, context: ['home'], keywords_attributes: [{ keyword: `${title}-a` }, { keyword: `${title}-b` }] },
      });
      assert.equal(created.status, 200);
      filters.push(created.body);
      if (title === 'one')
        assert.equal((await server.request('POST', `/api/v2/filters/${created.body.id}/statuses`, { token, json: { status_id: status } })).status, 200);
    }
    const head = (await server.service.stores.events.readAll({ after: null, limit: 100_000 })).at(-1)!.position;
    assert.equal(await server.service.projector!.mastodonCaughtUp(head, 60_000), true);
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  it('finds nothing while Mastodon’s tables are as the log says', async () => {
    const { code, stdout, stderr } = await cli();
    assert.equal(code, 0, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /Mastodon's filter tables match the log: 2 accounts, 3 filters in Mastodon's tables checked up to position \d+\n$/);
  });

  it('names a filter changed behind the service’s back, a row missing and a row the log never made, one JSON line each, and exits 1', async () => {
    const [one, two] = filters;
    // What Mastodon's own settings page would do to rows it believes are its own.
    await db.pool.query(`UPDATE custom_filters SET phrase = 'edited in Mastodon', action = 1 WHERE id = $1`, [one!.id]);
    await db.pool.query('DELETE FROM custom_filter_keywords WHERE id = $1', [two!.keywords[1]!.id]);
    const extra = snowflake();
    const extraKeyword = snowflake();
    await db.pool.query(
      `INSERT INTO custom_filters (id, account_id, phrase, context, created_at, updated_at) VALUES ($1, $2, 'made in Mastodon', '{home}', now(), now())`,
      [extra, bob.accountId],
    );
    await db.pool.query(`INSERT INTO custom_filter_keywords (id, custom_filter_id, keyword, created_at, updated_at) VALUES ($1, $2, 'x', now(), now())`, [
      extraKeyword,
      extra,
    ]);
    const { code, stdout, stderr } = await cli();
    assert.equal(code, 1, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const row = (account: string, table: string, id: string, field: string, live: unknown, log: unknown) => ({
      account,
      model: 'mastodon',
      table,
      id,
      field,
      live,
      log,
    });
    assert.deepEqual(
      new Set(lines.map((l) => JSON.stringify(l))),
      new Set(
        [
          row(alice.accountId, 'custom_filters', one!.id, 'phrase', 'edited in Mastodon', 'one'),
          row(alice.accountId, 'custom_filters', one!.id, 'action', 1, 0),
          row(alice.accountId, 'custom_filter_keywords', two!.keywords[1]!.id, 'exists', false, true),
          row(bob.accountId, 'custom_filters', extra, 'exists', true, false),
          row(bob.accountId, 'custom_filter_keywords', extraKeyword, 'exists', true, false),
        ].map((l) => JSON.stringify(l)),
      ),
    );
    assert.equal(lines.length, 5);
    assert.match(stderr, /read models match the log/, 'the service’s own read models are fine');
    assert.match(stderr, /Mastodon's filter tables differ from the log in 5 places/);
  });
});
