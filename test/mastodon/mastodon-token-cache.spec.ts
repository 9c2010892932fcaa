import assert from 'node:assert/strict';
import { MastodonTokenSource, OUTAGE_GRACE_MS, TOKEN_CACHE_MS } from '../../src/mastodon/mastodon-token-source.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';

describe('MastodonTokenSource: looked-up tokens are believed for one second', function () {
  this.timeout(30_000);
  let db: MastodonTestDatabase;
  let now = 0;
  let queries = 0;
  let source: MastodonTokenSource;

  before(async () => {
    db = await MastodonTestDatabase.create();
  });
  after(() => db?.drop());
  beforeEach(() => {
    now = 1_000_000;
    queries = 0;
    const counted = { query: (...args: unknown[]) => ((queries += 1), (db.pool.query as (...a: unknown[]) => unknown)(...args)) };
    source = new MastodonTokenSource(counted as never, { now: () => now });
  });

  it('a burst with one token costs one query; the next query comes once the second is over', async () => {
    const token = await db.token(await db.user(), 'read');
    const outcomes = await Promise.all([source.lookup(token), source.lookup(token), source.lookup(token)]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['user', 'user', 'user'],
    );
    await source.lookup(token);
    assert.equal(queries, 1);
    now += TOKEN_CACHE_MS;
    await source.lookup(token);
    assert.equal(queries, 2);
  });

  it('a revocation committed in Mastodon is seen as soon as the cached outcome is a second old, never later', async () => {
    const token = await db.token(await db.user(), 'read');
    assert.equal((await source.lookup(token)).kind, 'user');
    await db.pool.query(`UPDATE oauth_access_tokens SET revoked_at = now() AT TIME ZONE 'UTC' WHERE token = $1`, [token]);
    now += TOKEN_CACHE_MS - 1;
    assert.equal((await source.lookup(token)).kind, 'user', 'still within the second it was read in');
    now += 1;
    assert.equal((await source.lookup(token)).kind, 'revoked');
  });

  it('an unknown token is asked about every time, so a token Mastodon has just issued works at once', async () => {
    assert.equal((await source.lookup('not-issued-yet')).kind, 'unknown');
    await db.pool.query(`INSERT INTO oauth_access_tokens (token, scopes, created_at) VALUES ('not-issued-yet', 'read', now() AT TIME ZONE 'UTC')`);
    assert.equal((await source.lookup('not-issued-yet')).kind, 'app');
    assert.equal(queries, 2);
  });

  it('while Mastodon’s database cannot be reached, a user’s outcome read within the grace still stands; an unknown token and a late one fail', async () => {
    let down = false;
    const flaky = {
      query: (...args: unknown[]) => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : (db.pool.query as (...a: unknown[]) => unknown)(...args)),
    };
    source = new MastodonTokenSource(flaky as never, { now: () => now });
    const token = await db.token(await db.user(), 'read');
    assert.equal((await source.lookup(token)).kind, 'user');
    down = true;
    now += OUTAGE_GRACE_MS - 1;
    assert.equal((await source.lookup(token)).kind, 'user', 'nothing could revoke it meanwhile');
    await assert.rejects(source.lookup('never-seen'), /cannot be queried/);
    now += 1;
    await assert.rejects(source.lookup(token), /cannot be queried/, 'the grace is over');
  });
});
