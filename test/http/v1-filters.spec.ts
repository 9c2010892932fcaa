import assert from 'node:assert/strict';
import { MULTIPLE_KEYWORDS_MESSAGE } from '../../src/commands/filter/filter-rules.ts';
import { serverWithTwoAccounts, type TestAccount } from '../support/test-server.ts';

describe('v1 filters over HTTP', () => {
  const given = serverWithTwoAccounts();

  const createV1 = async (who: TestAccount, form = 'phrase=magic&context[]=home&irreversible=true&whole_word=false') => {
    const response = await given.server.request('POST', '/api/v1/filters', { token: who.token, form });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; phrase: string };
  };
  const v2Filters = async (who: TestAccount) => (await given.server.request('GET', '/api/v2/filters', { token: who.token })).body as any[];

  it('lists one record per keyword, identified by the keyword id', async () => {
    const v2 = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      form: 'title=two&context[]=home&keywords_attributes[][keyword]=a&keywords_attributes[][keyword]=b',
    });
    await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: 'title=none&context[]=home' });
    const response = await given.server.request('GET', '/api/v1/filters', { token: given.alice.token });
    assert.equal(response.status, 200);
    assert.match(response.type, /^application\/json/);
    assert.deepEqual(
      response.body.map((r: { id: string }) => r.id),
      v2.body.keywords.map((k: { id: string }) => k.id),
    );
    assert.deepEqual((await given.server.request('GET', '/api/v1/filters', { token: given.bob.token })).body, []);
  });

  it('creates a hide filter with one keyword as sent', async () => {
    const record = await createV1(given.alice);
    assert.deepEqual(Object.keys(record), ['id', 'phrase', 'context', 'whole_word', 'expires_at', 'irreversible']);
    assert.deepEqual(record, { id: record.id, phrase: 'magic', context: ['home'], whole_word: false, expires_at: null, irreversible: true });
    const [filter] = await v2Filters(given.alice);
    assert.equal(filter.filter_action, 'hide');
    assert.equal(filter.expires_at, null);
    assert.deepEqual(
      filter.keywords.map((k: any) => [k.id, k.keyword, k.whole_word]),
      [[record.id, 'magic', false]],
    );
  });

  it('creates a warn filter with a whole-word keyword', async () => {
    const record = await createV1(given.alice, 'phrase=magic&context[]=home&irreversible=false&whole_word=true');
    assert.equal((record as any).irreversible, false);
    assert.equal((record as any).whole_word, true);
    const [filter] = await v2Filters(given.alice);
    assert.equal(filter.filter_action, 'warn');
    assert.deepEqual(filter.context, ['home']);
  });

  it('defaults whole_word to true and irreversible to false', async () => {
    const record: any = await createV1(given.alice, 'phrase=plain&context[]=public');
    assert.equal(record.whole_word, true);
    assert.equal(record.irreversible, false);
  });

  it('refuses a blank phrase and an invalid context', async () => {
    const blank = await given.server.request('POST', '/api/v1/filters', { token: given.alice.token, form: 'phrase=&context[]=home' });
    assert.equal(blank.status, 422);
    assert.match(blank.body.error, /^Validation failed: Title can't be blank/);
    const context = await given.server.request('POST', '/api/v1/filters', { token: given.alice.token, form: 'phrase=x&context[]=word' });
    assert.equal(context.status, 422);
    assert.deepEqual(await v2Filters(given.alice), []);
  });

  it('shows a record to its owner only', async () => {
    const record = await createV1(given.alice);
    const response = await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: given.alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, record);
    assert.equal((await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: given.bob.token })).status, 404);
  });

  it('updates the phrase of a single-keyword filter (and its title)', async () => {
    const record = await createV1(given.alice);
    const response = await given.server.request('PUT', `/api/v1/filters/${record.id}`, { token: given.alice.token, form: 'phrase=updated' });
    assert.equal(response.status, 200);
    assert.equal(response.body.phrase, 'updated');
    assert.equal((await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: given.alice.token })).body.phrase, 'updated');
    assert.equal((await v2Filters(given.alice))[0].title, 'updated');
  });

  it('refuses filter-level changes on a filter with several keywords, changing nothing', async () => {
    const v2 = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      form: 'title=two&context[]=home&keywords_attributes[][keyword]=a&keywords_attributes[][keyword]=b',
    });
    const keywordId = v2.body.keywords[0].id;
    const response = await given.server.request('PUT', `/api/v1/filters/${keywordId}`, { token: given.alice.token, form: 'context[]=public' });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, { error: MULTIPLE_KEYWORDS_MESSAGE });
    const changedPhrase = await given.server.request('PUT', `/api/v1/filters/${keywordId}`, { token: given.alice.token, form: 'phrase=renamed' });
    assert.equal(changedPhrase.status, 422);
    const filter = (await v2Filters(given.alice))[0];
    assert.deepEqual(filter.context, ['home']);
    assert.equal(filter.keywords[0].keyword, 'a');
    const wholeWord = await given.server.request('PUT', `/api/v1/filters/${keywordId}`, { token: given.alice.token, form: 'whole_word=false' });
    assert.equal(wholeWord.status, 200, 'keyword-level changes stay allowed');
    assert.equal(wholeWord.body.whole_word, false);
  });

  it('deletes only the keyword, leaving its filter', async () => {
    const record = await createV1(given.alice);
    const response = await given.server.request('DELETE', `/api/v1/filters/${record.id}`, { token: given.alice.token, json: {} });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {});
    assert.equal((await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: given.alice.token })).status, 404);
    const [filter] = await v2Filters(given.alice);
    assert.deepEqual(filter.keywords, []);
  });

  it("keeps another account's records out of reach of update and delete", async () => {
    const record = await createV1(given.bob);
    assert.equal((await given.server.request('PUT', `/api/v1/filters/${record.id}`, { token: given.alice.token, form: 'phrase=x' })).status, 404);
    assert.equal((await given.server.request('DELETE', `/api/v1/filters/${record.id}`, { token: given.alice.token })).status, 404);
    assert.equal((await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: given.bob.token })).body.phrase, 'magic');
  });

  it('checks scopes: read for GET, write for the rest', async () => {
    const record = await createV1(given.alice);
    const readOnly = await given.server.token(given.alice, ['read']);
    const writeOnly = await given.server.token(given.alice, ['write']);
    assert.equal((await given.server.request('GET', '/api/v1/filters', { token: writeOnly })).status, 403);
    assert.equal((await given.server.request('GET', `/api/v1/filters/${record.id}`, { token: readOnly })).status, 200);
    assert.equal((await given.server.request('POST', '/api/v1/filters', { token: readOnly, form: 'phrase=x&context[]=home' })).status, 403);
    assert.equal((await given.server.request('PUT', `/api/v1/filters/${record.id}`, { token: readOnly, form: 'phrase=x' })).status, 403);
    assert.equal((await given.server.request('DELETE', `/api/v1/filters/${record.id}`, { token: readOnly })).status, 403);
    assert.equal((await given.server.request('DELETE', `/api/v1/filters/${record.id}`, {})).status, 401);
  });
});
