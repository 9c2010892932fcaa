import assert from 'node:assert/strict';
import { MastodonTestDatabase, snowflake, type MastodonUser } from '../support/mastodon-database.ts';
import { insertManyMastodonFilters, insertMastodonFilter, mastodonShows } from '../support/mastodon-filter-rows.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

describe('mastodon import: hostile rows are reported and skipped, or imported as the API stores them', function () {
  this.timeout(240_000);
  let db: MastodonTestDatabase;
  let server: TestServer;
  let env: Record<string, string>;

  before(async () => {
    db = await MastodonTestDatabase.create();
    env = { DATA_DIR: scratchDir(), MASTODON_DATABASE_URL: db.url };
    server = await TestServer.start(env);
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  /** An account of another server (a domain, no users row), as federation makes them: it cannot sign in. */
  async function remoteAccount(): Promise<MastodonUser> {
    const accountId = snowflake();
    await db.pool.query(`INSERT INTO accounts (id, username, domain, created_at, updated_at) VALUES ($1, 'remote', $2, now(), now())`, [
      accountId,
      `r${accountId}.example`,
    ]);
    return { accountId, userId: '', username: 'remote' };
  }

  it('skips each filter the API would refuse, names it and why, imports the rest, and exits 2', async () => {
    const good = await db.user();
    const bad = await db.user();
    const full = await db.user();
    const remote = await remoteAccount();
    const controls = await insertMastodonFilter(db, good, { phrase: 'ctl\u0001\t\n\u001b[31m\u007f\u200b end', keywords: ['bell\u0007', 'x\r\ny'] });
    const proto = await insertMastodonFilter(db, good, { phrase: '__proto__', keywords: ['__proto__', 'constructor'] });
    const twice = await insertMastodonFilter(db, good, { phrase: 'Twice', keywords: ['same', 'same', { keyword: 'same', wholeWord: false }] });
    const skipped: [string, string][] = [
      [(await insertMastodonFilter(db, bad, { phrase: 'x'.repeat(300) })).id, 'Validation failed: Title is too long (maximum is 256 characters)'],
      [(await insertMastodonFilter(db, bad, { phrase: '   ' })).id, "Validation failed: Title can't be blank"],
      [(await insertMastodonFilter(db, bad, { action: 7 })).id, "action 7 is none of Mastodon's (0 warn, 1 hide, 2 blur)"],
      [(await insertMastodonFilter(db, bad, { action: -1 })).id, "action -1 is none of Mastodon's (0 warn, 1 hide, 2 blur)"],
      [(await insertMastodonFilter(db, bad, { context: [] })).id, "Validation failed: Context can't be blank, Context None or invalid context supplied"],
      [(await insertMastodonFilter(db, bad, { context: ['home', 'timeline'] })).id, 'Validation failed: Context None or invalid context supplied'],
      [(await insertMastodonFilter(db, bad, { context: Array(100).fill('home') })).id, 'context has 100 entries (Mastodon has 5 contexts)'],
      [(await insertMastodonFilter(db, bad, { expiresAt: "'infinity'" })).id, 'expires_at infinity is not a time the API can store'],
      [(await insertMastodonFilter(db, bad, { keywords: ['ok', ' '] })).id, "Validation failed: Keywords keyword can't be blank"],
      [
        (await insertMastodonFilter(db, bad, { keywords: ['y'.repeat(10_000_000)] })).id,
        'Validation failed: Keywords keyword is too long (maximum is 512 characters)',
      ],
      [
        (await insertManyMastodonFilters(db, bad.accountId, { count: 1, keywords: 1001 }))[0]!,
        'Validation failed: Keywords are too many (maximum is 1000 per filter)',
      ],
    ];
    const remoteFilter = await insertMastodonFilter(db, remote);
    // 20,000 keyword characters a filter (the per-filter limit, allowed): the sixth passes the account's 100,000.
    const large = await insertManyMastodonFilters(db, full.accountId, { count: 6, keywords: 40, keywordLength: 500 });

    const started = Date.now();
    const run = await runCli(['mastodon', 'import'], env);
    const seconds = (Date.now() - started) / 1000;
    assert.equal(run.code, 2, run.stderr);
    const lines = run.stdout.split('\n').filter(Boolean);
    for (const [id, reason] of skipped)
      assert.ok(lines.includes(`skipped filter ${id} (account ${bad.accountId}): ${reason}`), `${id}: ${reason}\n${run.stdout}`);
    assert.ok(
      lines.includes(
        `skipped filter ${remoteFilter.id} (account ${remote.accountId}): account ${remote.accountId} is not a local user (no users row), so no one could use this filter`,
      ),
    );
    for (const id of large.slice(0, 5)) assert.ok(lines.includes(`imported filter ${id} (account ${full.accountId}): 40 keywords, 0 statuses`), id);
    assert.ok(
      lines.includes(
        `skipped filter ${large[5]} (account ${full.accountId}): Validation failed: Keywords are too long together (maximum is 100000 characters per account)`,
      ),
    );
    for (const { id } of [controls, proto, twice])
      assert.ok(lines.includes(`imported filter ${id} (account ${good.accountId}): ${id === twice.id ? 3 : 2} keywords, 0 statuses`), id);
    assert.equal(lines.length, 3 + skipped.length + 1 + 6);
    assert.equal(
      run.stderr,
      `error: mastodon import left 13 filters out (each named above): 8 imported, 0 already in the log, 13 skipped, of 21 filters in Mastodon's tables\n`,
    );
    process.stdout.write(`      (import of 21 filters, one of 10 MB, one of 1,001 keywords: ${seconds.toFixed(1)} s with the CLI's start)\n`);

    // Imported verbatim, control characters and duplicate keywords too, as the API stores what it is sent.
    const token = await db.token(good, 'read');
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).body.length === 3, 'the imported filters listed');
    const shows = await mastodonShows(db, good.accountId);
    assert.deepEqual((await server.request('GET', '/api/v2/filters', { token })).body, shows.v2);
    assert.deepEqual((await server.request('GET', '/api/v1/filters', { token })).body, shows.v1);

    // Nothing of a skipped filter reached the log.
    for (const [id] of [...skipped, [remoteFilter.id], [large[5]!]]) assert.deepEqual(await server.service.stores.events.readStream(`filter-${id}`), [], id);
    const badToken = await db.token(bad, 'read');
    assert.deepEqual((await server.request('GET', '/api/v2/filters', { token: badToken })).body, []);

    // The skipped filters' rows stay in Mastodon's tables (the import changes no row) and the log never
    // made them, so the drift check names exactly those rows, each as on Mastodon's side only, and nothing else.
    const left = [...skipped.map(([id]) => [id, bad.accountId]), [remoteFilter.id, remote.accountId], [large[5]!, full.accountId]];
    const expected: string[] = [];
    for (const [id, account] of left) {
      const exists = (table: string, rowId: string) =>
        JSON.stringify({ account, model: 'mastodon', table, id: rowId, field: 'exists', live: true, log: false });
      expected.push(exists('custom_filters', id!));
      for (const table of ['custom_filter_keywords', 'custom_filter_statuses']) {
        const { rows } = await db.pool.query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE custom_filter_id = $1::bigint`, [id]);
        for (const row of rows) expected.push(exists(table, row.id));
      }
    }
    const verified = await runCli(['verify', '--read-models'], env);
    assert.equal(verified.code, 1, verified.stderr);
    const named = verified.stdout.split('\n').filter(Boolean);
    assert.deepEqual([...named].sort(), [...expected].sort());
    assert.match(verified.stderr, /read models match the log/);
    assert.match(verified.stderr, new RegExp(`error: Mastodon's filter tables differ from the log in ${expected.length} places: 4 accounts, 21 filters`));
  });

  it('refuses to run without MASTODON_DATABASE_URL, or on a database that is not Mastodon’s, with one line and exit 1', async () => {
    const without = await runCli(['mastodon', 'import'], { DATA_DIR: env.DATA_DIR! });
    assert.deepEqual(
      [without.code, without.stdout, without.stderr],
      [1, '', "error: mastodon import reads Mastodon's database: set MASTODON_DATABASE_URL (docs/mastodon.md)\n"],
    );
    const url = new URL(db.url);
    url.pathname = '/postgres';
    const wrong = await runCli(['mastodon', 'import'], { DATA_DIR: env.DATA_DIR!, MASTODON_DATABASE_URL: url.toString() });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /^error: MASTODON_DATABASE_URL \(127\.0\.0\.1:5432\/[^)]*\) is not a Mastodon database: no oauth_access_tokens, users, accounts table\n$/,
    );
  });
});
