import assert from 'node:assert/strict';
import { MAX_STATUSES_PER_REQUEST } from '../../src/matching/match-request.ts';
import { serverWithTwoAccounts, type TestAccount } from '../support/test-server.ts';

describe('POST /api/v2/filters/match', () => {
  const given = serverWithTwoAccounts();

  const match = (who: TestAccount | string, json: unknown) =>
    given.server.request('POST', '/api/v2/filters/match', { token: typeof who === 'string' ? who : who.token, json });
  const createFilter = async (who: TestAccount, json: unknown) => {
    const response = await given.server.request('POST', '/api/v2/filters', { token: who.token, json });
    assert.equal(response.status, 200);
    return response.body;
  };
  const toot = (id: string, content: string, more: object = {}) => ({ id, content, ...more });

  it("applies the caller's filters to each status, as FilterResults", async () => {
    const filter = await createFilter(given.alice, {
      title: 'Spoilers',
      context: ['home', 'public'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'finale', whole_word: true }],
    });
    const response = await match(given.alice, { statuses: [toot('101', '<p>The FINALE was great</p>'), toot('102', '<p>nothing here</p>')] });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      results: {
        '101': [
          {
            filter: { id: filter.id, title: 'Spoilers', context: ['home', 'public'], expires_at: null, filter_action: 'hide' },
            keyword_matches: ['FINALE'],
            status_matches: null,
          },
        ],
        '102': [],
      },
    });
  });

  it('matches status rules, also of a boost through its reblog_of_id', async () => {
    const filter = await createFilter(given.alice, { title: 'that one', context: ['home'] });
    await given.server.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: given.alice.token, json: { status_id: '555' } });
    const response = await match(given.alice, { statuses: [toot('777', 'a boost', { reblog_of_id: '555' }), toot('555', 'the original')] });
    assert.deepEqual(response.body.results['777'][0].status_matches, ['555']);
    assert.deepEqual(response.body.results['555'][0].status_matches, ['555']);
  });

  it('keeps only the filters for a given context', async () => {
    await createFilter(given.alice, { title: 'home only', context: ['home'], keywords_attributes: [{ keyword: 'cats' }] });
    assert.equal((await match(given.alice, { statuses: [toot('1', 'cats')], context: 'home' })).body.results['1'].length, 1);
    assert.equal((await match(given.alice, { statuses: [toot('1', 'cats')], context: 'public' })).body.results['1'].length, 0);
  });

  it('uses a change to the filters in the very next match', async () => {
    const statuses = [toot('1', '<p>lunchbox photos</p>')];
    assert.deepEqual((await match(given.alice, { statuses })).body.results['1'], [], 'no filters yet');
    const filter = await createFilter(given.alice, { title: 'food', context: ['home'], keywords_attributes: [{ keyword: 'lunch', whole_word: false }] });
    assert.deepEqual((await match(given.alice, { statuses })).body.results['1'][0].keyword_matches, ['lunch']);
    const keywordId = filter.keywords[0].id;
    await given.server.request('PUT', `/api/v2/filters/${filter.id}`, {
      token: given.alice.token,
      json: { keywords_attributes: [{ id: keywordId, keyword: 'lunch', whole_word: true }] },
    });
    assert.deepEqual((await match(given.alice, { statuses })).body.results['1'], [], 'whole word now');
    await given.server.request('PUT', `/api/v2/filters/${filter.id}`, { token: given.alice.token, json: { title: 'meals' } });
    const title = (await match(given.alice, { statuses: [toot('2', 'lunch')] })).body.results['2'][0].filter.title;
    assert.equal(title, 'meals');
    await given.server.request('DELETE', `/api/v2/filters/${filter.id}`, { token: given.alice.token });
    assert.deepEqual((await match(given.alice, { statuses: [toot('2', 'lunch')] })).body.results['2'], []);
  });

  it("never applies another account's filters", async () => {
    const bobs = await createFilter(given.bob, { title: 'bob', context: ['home'], keywords_attributes: [{ keyword: 'secret' }] });
    await given.server.request('POST', `/api/v2/filters/${bobs.id}/statuses`, { token: given.bob.token, json: { status_id: '42' } });
    const response = await match(given.alice, { statuses: [toot('42', 'a secret')] });
    assert.deepEqual(response.body.results['42'], []);
    assert.equal((await match(given.bob, { statuses: [toot('42', 'a secret')] })).body.results['42'].length, 1);
  });

  it('needs a token with read:filters (read is enough, write alone is not)', async () => {
    const body = { statuses: [toot('1', 'x')] };
    assert.equal((await match(await given.server.token(given.alice, ['read:filters']), body)).status, 200);
    assert.equal((await match(await given.server.token(given.alice, ['read']), body)).status, 200);
    const writeOnly = await match(await given.server.token(given.alice, ['write:filters']), body);
    assert.deepEqual([writeOnly.status, writeOnly.body], [403, { error: 'This action is outside the authorized scopes' }]);
    const anonymous = await given.server.request('POST', '/api/v2/filters/match', { json: body });
    assert.deepEqual([anonymous.status, anonymous.body], [401, { error: 'The access token is invalid' }]);
  });

  it('answers a bad request with a JSON error', async () => {
    const expectError = (response: { status: number; type: string; body: any }, status: number, error: string | RegExp) => {
      assert.equal(response.status, status);
      assert.match(response.type, /^application\/json/);
      if (typeof error === 'string') assert.equal(response.body.error, error);
      else assert.match(response.body.error, error);
    };
    expectError(await match(given.alice, {}), 422, 'statuses is missing');
    expectError(await match(given.alice, { statuses: 'all' }), 422, 'statuses is invalid');
    expectError(await match(given.alice, { statuses: [{ content: 'x' }] }), 422, 'statuses[0].id is missing');
    expectError(await match(given.alice, { statuses: [{ id: 'abc' }] }), 422, 'statuses[0].id is invalid');
    expectError(await match(given.alice, { statuses: [{ id: '1', poll_options: [1] }] }), 422, 'statuses[0].poll_options[0] is invalid');
    expectError(await match(given.alice, { statuses: [], context: 'everywhere' }), 422, /^context must be one of home/);
    const tooMany = Array.from({ length: MAX_STATUSES_PER_REQUEST + 1 }, (_, i) => toot(String(i + 1), 'x'));
    expectError(await match(given.alice, { statuses: tooMany }), 422, `statuses holds more than ${MAX_STATUSES_PER_REQUEST} statuses`);
    const raw = (contentType: string, body: string) =>
      given.server.request('POST', '/api/v2/filters/match', { token: given.alice.token, raw: { contentType, body } });
    expectError(await raw('application/json', '{"statuses": ['), 400, 'Error occurred while parsing request parameters');
    expectError(await raw('application/x-www-form-urlencoded', 'statuses=1'), 415, /^Unsupported media type/);
  });

  it('takes a full batch', async () => {
    await createFilter(given.alice, { title: 'w', context: ['home'], keywords_attributes: [{ keyword: 'needle' }] });
    const statuses = Array.from({ length: MAX_STATUSES_PER_REQUEST }, (_, i) => toot(String(i + 1), i % 2 ? '<p>a needle</p>' : '<p>hay</p>'));
    const response = await match(given.alice, { statuses });
    assert.equal(response.status, 200);
    assert.equal(Object.keys(response.body.results).length, MAX_STATUSES_PER_REQUEST);
    assert.equal(Object.values(response.body.results).filter((r) => (r as unknown[]).length > 0).length, MAX_STATUSES_PER_REQUEST / 2);
  });
});
