import assert from 'node:assert/strict';
import { MASTODON_PROJECTION } from '../../src/projections/mastodon/mastodon-filter-rows.ts';
import { MastodonFilterTables } from '../../src/projections/mastodon/mastodon-filter-tables.ts';
import { freshFilterRows, rowsOfAnswer, withoutXmin } from '../support/mastodon-fresh-rows.ts';
import { MastodonTestDatabase, snowflake, type MastodonUser } from '../support/mastodon-database.ts';
import { TestServer } from '../support/test-server.ts';

describe('Mastodon mode: custom_filters, custom_filter_keywords and custom_filter_statuses are a read model', function () {
  this.timeout(120_000);
  let db: MastodonTestDatabase;
  let server: TestServer;

  before(async () => {
    db = await MastodonTestDatabase.create();
    server = await TestServer.start({ MASTODON_DATABASE_URL: db.url });
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  /** Waits until Mastodon's tables hold everything the log holds now. */
  const projected = async () => {
    const head = (await server.service.stores.events.readAll({ after: null, limit: 1_000_000 })).at(-1)?.position;
    if (head !== undefined) assert.equal(await server.service.projector!.mastodonCaughtUp(head, 60_000), true, "Mastodon's tables caught up");
  };
  const status = async (user: MastodonUser) => {
    const id = snowflake();
    await db.pool.query(`INSERT INTO statuses (id, text, created_at, updated_at, account_id) VALUES ($1, 'hi', now(), now(), $2)`, [id, user.accountId]);
    return id;
  };
  const rowsMatchApi = async (token: string, user: MastodonUser, filterId: string) => {
    await projected();
    const answer = await server.request('GET', `/api/v2/filters/${filterId}`, { token });
    assert.equal(answer.status, 200);
    assert.deepEqual(withoutXmin(await freshFilterRows(db.url, filterId)), rowsOfAnswer(answer.body, user.accountId));
  };

  it('every v2 write lands in the three tables with the ids the API answered, each request in one transaction with the checkpoint', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const created = await server.request('POST', '/api/v2/filters', {
      token,
      json: {
        title: 'spoilers',
        context: ['home', 'public'],
        filter_action: 'warn',
        keywords_attributes: [{ keyword: 'finale' }, { keyword: 'ending', whole_word: false }],
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const filterId: string = created.body.id;
    await rowsMatchApi(token, user, filterId);

    const statusId = await status(user);
    const filtered = await server.request('POST', `/api/v2/filters/${filterId}/statuses`, { token, json: { status_id: statusId } });
    assert.equal(filtered.status, 200);
    await rowsMatchApi(token, user, filterId);
    assert.equal((await freshFilterRows(db.url, filterId)).statuses[0]!.id, filtered.body.id, 'the filter-status id is the API’s');

    // One request changing the settings and the keywords: one commit, so one PostgreSQL transaction.
    const [finale, ending] = created.body.keywords as { id: string }[];
    const updated = await server.request('PUT', `/api/v2/filters/${filterId}`, {
      token,
      json: {
        title: 'no spoilers',
        context: ['thread'],
        filter_action: 'hide',
        expires_in: 3600,
        keywords_attributes: [{ id: finale!.id, keyword: 'season finale' }, { id: ending!.id, _destroy: true }, { keyword: 'cliffhanger' }],
      },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    await rowsMatchApi(token, user, filterId);
    const rows = await freshFilterRows(db.url, filterId);
    const added = rows.keywords.find((k) => k.keyword === 'cliffhanger')!;
    const changed = rows.keywords.find((k) => k.keyword === 'season finale')!;
    const checkpoint = await db.pool.query('SELECT xmin::text FROM content_filters.checkpoints WHERE projection = $1', [MASTODON_PROJECTION]);
    assert.deepEqual([rows.filter!.xmin, added.xmin, changed.xmin], [checkpoint.rows[0].xmin, checkpoint.rows[0].xmin, checkpoint.rows[0].xmin]);
    assert.notEqual(rows.statuses[0]!.xmin, rows.filter!.xmin, 'the status row was written by an earlier request and left alone');

    const keyword = await server.request('POST', `/api/v2/filters/${filterId}/keywords`, { token, json: { keyword: 'epilogue', whole_word: true } });
    assert.equal(keyword.status, 200);
    await rowsMatchApi(token, user, filterId);
    assert.equal((await server.request('DELETE', `/api/v2/filters/keywords/${keyword.body.id}`, { token })).status, 200);
    assert.equal((await server.request('DELETE', `/api/v2/filters/statuses/${filtered.body.id}`, { token })).status, 200);
    await rowsMatchApi(token, user, filterId);
    assert.deepEqual((await freshFilterRows(db.url, filterId)).statuses, []);
  });

  it('v1 writes land too: the v1 id is the keyword row’s id, irreversible is action 1', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const created = await server.request('POST', '/api/v1/filters', {
      token,
      json: { phrase: 'mute me', context: ['home'], irreversible: true, whole_word: false },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await projected();
    const { rows } = await db.pool.query('SELECT custom_filter_id::text AS filter FROM custom_filter_keywords WHERE id = $1', [created.body.id]);
    assert.equal(rows.length, 1, 'a keyword row with the v1 id');
    const filterId: string = rows[0].filter;
    const read = await freshFilterRows(db.url, filterId);
    assert.deepEqual([read.filter?.phrase, read.filter?.action, read.keywords.map((k) => [k.keyword, k.whole_word])], ['mute me', 1, [['mute me', false]]]);
    const updated = await server.request('PUT', `/api/v1/filters/${created.body.id}`, {
      token,
      json: { phrase: 'mute me more', context: ['public'], irreversible: false },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    await rowsMatchApi(token, user, filterId);
    assert.equal((await server.request('DELETE', `/api/v1/filters/${created.body.id}`, { token })).status, 200);
    // The v1 record is the keyword: its row goes, and the filter's row stays as the v2 API still shows it.
    await rowsMatchApi(token, user, filterId);
    assert.deepEqual((await freshFilterRows(db.url, filterId)).keywords, []);
  });

  it('a deleted filter leaves all three tables; another account never sees its rows or the filter', async () => {
    const owner = await db.user();
    const token = await db.token(owner);
    const other = await db.token(await db.user());
    const created = await server.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'gone soon', context: ['home'], keywords_attributes: [{ keyword: 'x' }] },
    });
    const filterId: string = created.body.id;
    await server.request('POST', `/api/v2/filters/${filterId}/statuses`, { token, json: { status_id: await status(owner) } });
    await rowsMatchApi(token, owner, filterId);
    assert.equal((await freshFilterRows(db.url, filterId)).filter!.account_id, owner.accountId);
    assert.equal((await server.request('GET', `/api/v2/filters/${filterId}`, { token: other })).status, 404);
    assert.equal((await server.request('DELETE', `/api/v2/filters/${filterId}`, { token: other })).status, 404);
    await projected();
    assert.notEqual((await freshFilterRows(db.url, filterId)).filter, null, 'another account’s delete changed nothing');

    assert.equal((await server.request('DELETE', `/api/v2/filters/${filterId}`, { token })).status, 200);
    await projected();
    assert.deepEqual(withoutXmin(await freshFilterRows(db.url, filterId)), { filter: null, keywords: [], statuses: [] });
  });

  it('a batch applied twice changes nothing: neither an old checkpoint nor an older revision rewrites the rows', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const created = await server.request('POST', '/api/v2/filters', {
      token,
      json: { title: 'kept', context: ['home'], keywords_attributes: [{ keyword: 'k' }] },
    });
    await projected();
    const before = await freshFilterRows(db.url, created.body.id);
    const tables = await MastodonFilterTables.open(db.pool);
    const checkpoint = (await tables.checkpoint(MASTODON_PROJECTION))!;
    const stale = { ...(await tables.loadFilters([created.body.id])).get(created.body.id)!, title: 'replayed' };
    // A newer revision, but at a position the checkpoint has passed (a batch stored already): nothing.
    await tables.applyBatch({ projection: MASTODON_PROJECTION, position: checkpoint, views: [{ ...stale, revision: stale.revision + 1 }] });
    assert.deepEqual(await freshFilterRows(db.url, created.body.id), before, 'the checkpoint had passed it');
    // A later position, but the filter's revision is no newer than the stored one: still nothing.
    await tables.applyBatch({ projection: MASTODON_PROJECTION, position: checkpoint + 1n, views: [stale] });
    assert.deepEqual(await freshFilterRows(db.url, created.body.id), before, 'the stored revision was as new');
    assert.equal(await tables.checkpoint(MASTODON_PROJECTION), checkpoint + 1n);
  });
});
