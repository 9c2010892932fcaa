import assert from 'node:assert/strict';
import { TestServer, type TestAccount } from '../support/test-server.ts';

describe('v2 filter keywords over HTTP', () => {
  let server: TestServer;
  let alice: TestAccount;
  let bob: TestAccount;

  before(async () => {
    server = await TestServer.start();
  });
  after(() => server.close());
  beforeEach(async () => {
    alice = await server.account();
    bob = await server.account();
  });

  const filterOf = async (who: TestAccount, keyword = 'foo', wholeWord = false) => {
    const response = await server.request('POST', '/api/v2/filters', {
      token: who.token,
      json: { title: 'kw', context: ['home'], keywords_attributes: [{ keyword, whole_word: wholeWord }] },
    });
    return response.body as { id: string; keywords: { id: string; keyword: string; whole_word: boolean }[] };
  };

  it('lists a filter\'s keywords to its owner only', async () => {
    const filter = await filterOf(alice);
    const response = await server.request('GET', `/api/v2/filters/${filter.id}/keywords`, { token: alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.map((k: { id: string }) => k.id), [filter.keywords[0]!.id]);
    assert.equal((await server.request('GET', `/api/v2/filters/${filter.id}/keywords`, { token: bob.token })).status, 404);
  });

  it('adds a keyword with whole_word as sent', async () => {
    const filter = await filterOf(alice);
    const response = await server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: alice.token, form: 'keyword=magic&whole_word=false' });
    assert.equal(response.status, 200);
    assert.equal(response.body.keyword, 'magic');
    assert.equal(response.body.whole_word, false);
    assert.match(response.body.id, /^[0-9]+$/);
    const keywords = (await server.request('GET', `/api/v2/filters/${filter.id}`, { token: alice.token })).body.keywords;
    assert.deepEqual(keywords.map((k: { keyword: string }) => k.keyword), ['foo', 'magic']);
  });

  it('defaults whole_word to true and refuses a blank keyword', async () => {
    const filter = await filterOf(alice);
    const added = await server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: alice.token, json: { keyword: 'x' } });
    assert.equal(added.body.whole_word, true);
    const blank = await server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: alice.token, json: { keyword: '' } });
    assert.equal(blank.status, 422);
    assert.deepEqual(blank.body, { error: "Validation failed: Keyword can't be blank" });
  });

  it('refuses to add a keyword to another account\'s filter', async () => {
    const filter = await filterOf(bob);
    const response = await server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: alice.token, form: 'keyword=magic' });
    assert.equal(response.status, 404);
    assert.equal((await server.request('GET', `/api/v2/filters/${filter.id}`, { token: bob.token })).body.keywords.length, 1);
  });

  it('shows one keyword to its owner only', async () => {
    const filter = await filterOf(alice, 'foo', false);
    const id = filter.keywords[0]!.id;
    const response = await server.request('GET', `/api/v2/filters/keywords/${id}`, { token: alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id, keyword: 'foo', whole_word: false });
    assert.equal((await server.request('GET', `/api/v2/filters/keywords/${id}`, { token: bob.token })).status, 404);
  });

  it('updates a keyword, with PUT or PATCH, for its owner only', async () => {
    const filter = await filterOf(alice);
    const id = filter.keywords[0]!.id;
    const response = await server.request('PUT', `/api/v2/filters/keywords/${id}`, { token: alice.token, form: 'keyword=updated' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id, keyword: 'updated', whole_word: false });
    const patched = await server.request('PATCH', `/api/v2/filters/keywords/${id}`, { token: alice.token, json: { whole_word: true } });
    assert.deepEqual(patched.body, { id, keyword: 'updated', whole_word: true });
    assert.equal((await server.request('PUT', `/api/v2/filters/keywords/${id}`, { token: bob.token, form: 'keyword=theirs' })).status, 404);
    assert.equal((await server.request('GET', `/api/v2/filters/keywords/${id}`, { token: alice.token })).body.keyword, 'updated');
  });

  it('deletes a keyword for its owner only, leaving the filter', async () => {
    const filter = await filterOf(alice);
    const id = filter.keywords[0]!.id;
    assert.equal((await server.request('DELETE', `/api/v2/filters/keywords/${id}`, { token: bob.token })).status, 404);
    const response = await server.request('DELETE', `/api/v2/filters/keywords/${id}`, { token: alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {});
    assert.equal((await server.request('GET', `/api/v2/filters/keywords/${id}`, { token: alice.token })).status, 404);
    assert.deepEqual((await server.request('GET', `/api/v2/filters/${filter.id}`, { token: alice.token })).body.keywords, []);
  });
});
