import assert from 'node:assert/strict';
import { MastodonTestDatabase, snowflake, type MastodonUser } from '../support/mastodon-database.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';

const FILTER = { title: 'spoilers', context: ['home'], keywords_attributes: [{ keyword: 'finale' }] };

describe('Mastodon mode: tokens are rows of Mastodon’s oauth_access_tokens', function () {
  this.timeout(60_000);
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

  const setUser = (user: MastodonUser, assignments: string) => db.pool.query(`UPDATE users SET ${assignments} WHERE id = $1`, [user.userId]);
  const setAccount = (user: MastodonUser, assignments: string) => db.pool.query(`UPDATE accounts SET ${assignments} WHERE id = $1`, [user.accountId]);

  it('a user’s token reads and writes that account’s filters', async () => {
    const user = await db.user();
    const token = await db.token(user, 'read write follow push');
    const created = await server.request('POST', '/api/v2/filters', { token, json: FILTER });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const listed = await server.request('GET', '/api/v2/filters', { token });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.map((f: { id: string; title: string }) => [f.id, f.title]),
      [[created.body.id, 'spoilers']],
    );
    const owner = await server.service.stores.accounts.findAccount(user.accountId);
    assert.deepEqual(owner && { id: owner.id, username: owner.username }, { id: user.accountId, username: user.username });
  });

  it('the scopes are the row’s: read:filters reads but cannot write', async () => {
    const token = await db.token(await db.user(), 'read:filters');
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 200);
    const write = await server.request('POST', '/api/v2/filters', { token, json: FILTER });
    assert.deepEqual([write.status, write.body], [403, { error: 'This action is outside the authorized scopes' }]);
  });

  it('unknown, revoked and expired tokens are 401 with Doorkeeper’s descriptions', async () => {
    const user = await db.user();
    const unknown = await server.request('GET', '/api/v2/filters', { token: 'not-a-mastodon-token' });
    assert.deepEqual([unknown.status, unknown.body], [401, { error: 'The access token is invalid' }]);

    const revoked = await db.token(user);
    await db.pool.query(`UPDATE oauth_access_tokens SET revoked_at = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE token = $1`, [revoked]);
    const refused = await server.request('GET', '/api/v2/filters', { token: revoked });
    assert.deepEqual([refused.status, refused.body], [401, { error: 'The access token was revoked' }]);

    const expired = await db.token(user, 'read', { expiresIn: 60, createdSecondsAgo: 120 });
    const late = await server.request('GET', '/api/v2/filters', { token: expired });
    assert.deepEqual([late.status, late.body], [401, { error: 'The access token expired' }]);

    // Doorkeeper: expired only once created_at + expires_in has passed; a revocation only once revoked_at has.
    const fresh = await db.token(user, 'read', { expiresIn: 3600, createdSecondsAgo: 120 });
    assert.equal((await server.request('GET', '/api/v2/filters', { token: fresh })).status, 200);
    const later = await db.token(user, 'read');
    await db.pool.query(`UPDATE oauth_access_tokens SET revoked_at = (now() AT TIME ZONE 'UTC') + interval '1 hour' WHERE token = $1`, [later]);
    assert.equal((await server.request('GET', '/api/v2/filters', { token: later })).status, 200);
  });

  it('require_user!: unconfirmed, pending, disabled and suspended users get Mastodon’s 403s, after the scope check', async () => {
    const cases: [Partial<Record<'confirmed' | 'approved' | 'disabled', boolean>>, string][] = [
      [{ confirmed: false }, 'Your login is missing a confirmed e-mail address'],
      [{ approved: false }, 'Your login is currently pending approval'],
      [{ disabled: true }, 'Your login is currently disabled'],
      // Mastodon's order: confirmation is asked before approval, approval before the rest.
      [{ confirmed: false, approved: false, disabled: true }, 'Your login is missing a confirmed e-mail address'],
    ];
    for (const [fields, message] of cases) {
      const token = await db.token(await db.user(fields), 'read');
      const answer = await server.request('GET', '/api/v2/filters', { token });
      assert.deepEqual([answer.status, answer.body], [403, { error: message }], JSON.stringify(fields));
      const write = await server.request('POST', '/api/v1/filters', { token, json: { phrase: 'x', context: ['home'] } });
      assert.deepEqual([write.status, write.body], [403, { error: 'This action is outside the authorized scopes' }], 'doorkeeper_authorize! runs first');
    }
    const suspended = await db.user();
    await setAccount(suspended, `suspended_at = now() AT TIME ZONE 'UTC'`);
    const answer = await server.request('GET', '/api/v1/filters', { token: await db.token(suspended) });
    assert.deepEqual([answer.status, answer.body], [403, { error: 'Your login is currently disabled' }]);
  });

  it('a token with no user (client_credentials) is 422 once its scope passes', async () => {
    const token = await db.token(null, 'read');
    const answer = await server.request('GET', '/api/v2/filters', { token });
    assert.deepEqual([answer.status, answer.body], [422, { error: 'This method requires an authenticated user' }]);
  });

  it('another Mastodon account gets 404 for a filter it does not own', async () => {
    const owner = await db.token(await db.user());
    const other = await db.token(await db.user());
    const created = await server.request('POST', '/api/v2/filters', { token: owner, json: FILTER });
    assert.equal(created.status, 200);
    const answer = await server.request('GET', `/api/v2/filters/${created.body.id}`, { token: other });
    assert.deepEqual([answer.status, answer.body], [404, { error: 'Record not found' }]);
  });

  it('a filtered status must exist in Mastodon’s statuses: an unknown one is refused before anything is written', async () => {
    const user = await db.user();
    const token = await db.token(user);
    const filter = await server.request('POST', '/api/v2/filters', { token, json: FILTER });
    const statusId = snowflake();
    await db.pool.query(`INSERT INTO statuses (id, text, created_at, updated_at, account_id) VALUES ($1, 'hi', now(), now(), $2)`, [statusId, user.accountId]);
    const added = await server.request('POST', `/api/v2/filters/${filter.body.id}/statuses`, { token, json: { status_id: statusId } });
    assert.deepEqual([added.status, added.body.status_id], [200, statusId]);
    const before = await server.service.stores.events.readAll({ after: null, limit: 100_000 });
    const unknown = await server.request('POST', `/api/v2/filters/${filter.body.id}/statuses`, { token, json: { status_id: snowflake() } });
    assert.deepEqual([unknown.status, unknown.body], [422, { error: 'Validation failed: Status must exist' }]);
    assert.equal((await server.service.stores.events.readAll({ after: null, limit: 100_000 })).length, before.length, 'nothing written');
    const listed = await server.request('GET', `/api/v2/filters/${filter.body.id}/statuses`, { token });
    assert.deepEqual(
      listed.body.map((s: { status_id: string }) => s.status_id),
      [statusId],
    );
    // As Mastodon's controller: the filter is looked up (404) before the status is validated.
    const noFilter = await server.request('POST', `/api/v2/filters/${snowflake()}/statuses`, { token, json: { status_id: snowflake() } });
    assert.equal(noFilter.status, 404);
  });

  it('a revocation, a disabling or a suspension committed in Mastodon is obeyed without a restart', async () => {
    const user = await db.user();
    const token = await db.token(user);
    assert.equal((await server.request('GET', '/api/v2/filters', { token })).status, 200);
    await setUser(user, 'disabled = true');
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).status === 403, 'the disabling to be obeyed', 10_000);
    await setUser(user, 'disabled = false');
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).status === 200, 'the re-enabling to be obeyed', 10_000);
    await db.pool.query(`UPDATE oauth_access_tokens SET revoked_at = now() AT TIME ZONE 'UTC' WHERE token = $1`, [token]);
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).status === 401, 'the revocation to be obeyed', 10_000);
    const answer = await server.request('GET', '/api/v2/filters', { token });
    assert.deepEqual(answer.body, { error: 'The access token was revoked' });
  });

  it('/health names Mastodon’s database; while it is away requests are 503 (never 500) and /health says why', async () => {
    const health = await server.request('GET', '/health');
    assert.equal(health.status, 200, JSON.stringify(health.body));
    assert.equal(health.body.mastodonDatabase, 'up');
    const token = await db.token(await db.user());
    await db.cutOff();
    try {
      const answer = await server.request('GET', '/api/v2/filters', { token });
      assert.deepEqual([answer.status, answer.body], [503, { error: "Service unavailable: Mastodon's database cannot be reached" }]);
      const away = await server.request('GET', '/health');
      assert.equal(away.status, 503);
      assert.equal(away.body.mastodonDatabase, 'down');
      assert.deepEqual(
        away.body.problems.map((p: { reason: string }) => p.reason),
        ['mastodon_database_unreachable'],
      );
      assert.equal((await server.request('GET', '/health/ready')).status, 503);
    } finally {
      await db.restore();
    }
    await waitUntil(async () => (await server.request('GET', '/api/v2/filters', { token })).status === 200, 'the database to be used again', 10_000);
    assert.equal((await server.request('GET', '/health')).body.mastodonDatabase, 'up');
  });
});
