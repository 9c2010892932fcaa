import assert from 'node:assert/strict';
import { serverWithTwoAccounts, type TestAccount } from '../support/test-server.ts';

describe('v2 filter statuses over HTTP', () => {
  const given = serverWithTwoAccounts();

  const filterOf = async (who: TestAccount) =>
    (await given.server.request('POST', '/api/v2/filters', { token: who.token, form: 'title=st&context[]=home' })).body as { id: string };
  const filterStatus = async (who: TestAccount, filterId: string, statusId = '109031743575371913') =>
    given.server.request('POST', `/api/v2/filters/${filterId}/statuses`, { token: who.token, form: `status_id=${statusId}` });

  it('filters a status and lists it', async () => {
    const filter = await filterOf(given.alice);
    const created = await filterStatus(given.alice, filter.id);
    assert.equal(created.status, 200);
    assert.match(created.type, /^application\/json/);
    assert.equal(created.body.status_id, '109031743575371913');
    assert.match(created.body.id, /^[0-9]+$/);
    const list = await given.server.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: given.alice.token });
    assert.deepEqual(list.body, [created.body]);
    assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${filter.id}`, { token: given.alice.token })).body.statuses, [created.body]);
  });

  it('accepts a numeric status_id in JSON', async () => {
    const filter = await filterOf(given.alice);
    const created = await given.server.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: given.alice.token, json: { status_id: 42 } });
    assert.equal(created.body.status_id, '42');
  });

  it('refuses the same status twice and a status id that cannot exist', async () => {
    const filter = await filterOf(given.alice);
    await filterStatus(given.alice, filter.id);
    const again = await filterStatus(given.alice, filter.id);
    assert.equal(again.status, 422);
    assert.deepEqual(again.body, { error: 'Validation failed: Status has already been taken' });
    const missing = await given.server.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: given.alice.token, json: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body, { error: 'Validation failed: Status must exist' });
  });

  it("keeps another account's filter statuses out of reach", async () => {
    const filter = await filterOf(given.bob);
    const created = (await filterStatus(given.bob, filter.id)).body;
    for (const [method, path] of [
      ['GET', `/api/v2/filters/${filter.id}/statuses`],
      ['POST', `/api/v2/filters/${filter.id}/statuses`],
      ['GET', `/api/v2/filters/statuses/${created.id}`],
      ['DELETE', `/api/v2/filters/statuses/${created.id}`],
    ] as const) {
      const response = await given.server.request(method, path, { token: given.alice.token, ...(method === 'POST' ? { form: 'status_id=1' } : {}) });
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.match(response.type, /^application\/json/);
    }
    assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: given.bob.token })).body, [created]);
  });

  it('shows one filter status and deletes it', async () => {
    const filter = await filterOf(given.alice);
    const created = (await filterStatus(given.alice, filter.id)).body;
    const shown = await given.server.request('GET', `/api/v2/filters/statuses/${created.id}`, { token: given.alice.token });
    assert.deepEqual(shown.body, created);
    const removed = await given.server.request('DELETE', `/api/v2/filters/statuses/${created.id}`, { token: given.alice.token });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, {});
    assert.equal((await given.server.request('GET', `/api/v2/filters/statuses/${created.id}`, { token: given.alice.token })).status, 404);
    assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: given.alice.token })).body, []);
  });

  it('needs read:filters to read and write:filters to change', async () => {
    const filter = await filterOf(given.alice);
    const writeOnly = await given.server.token(given.alice, ['write:filters']);
    const readOnly = await given.server.token(given.alice, ['read:filters']);
    assert.equal((await given.server.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: writeOnly })).status, 403);
    assert.equal((await given.server.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: readOnly, form: 'status_id=1' })).status, 403);
    assert.equal((await given.server.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: 'nope' })).status, 401);
  });
});
