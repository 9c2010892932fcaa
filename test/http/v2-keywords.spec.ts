import assert from 'node:assert/strict';
import { serverWithTwoAccounts, type TestAccount } from '../support/test-server.ts';

describe('v2 filter keywords over HTTP', () => {
  const given = serverWithTwoAccounts();

  const filterOf = async (who: TestAccount, keyword = 'foo', wholeWord = false) => {
    const response = await given.server.request('POST', '/api/v2/filters', {
      token: who.token,
      json: { title: 'kw', context: ['home'], keywords_attributes: [{ keyword, whole_word: wholeWord }] },
    });
    return response.body as { id: string; keywords: { id: string; keyword: string; whole_word: boolean }[] };
  };

  it("lists a filter's keywords to its owner only", async () => {
    const filter = await filterOf(given.alice);
    const response = await given.server.request('GET', `/api/v2/filters/${filter.id}/keywords`, { token: given.alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((k: { id: string }) => k.id),
      [filter.keywords[0]!.id],
    );
    assert.equal((await given.server.request('GET', `/api/v2/filters/${filter.id}/keywords`, { token: given.bob.token })).status, 404);
  });

  it('adds a keyword with whole_word as sent', async () => {
    const filter = await filterOf(given.alice);
    const response = await given.server.request('POST', `/api/v2/filters/${filter.id}/keywords`, {
      token: given.alice.token,
      form: 'keyword=magic&whole_word=false',
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.keyword, 'magic');
    assert.equal(response.body.whole_word, false);
    assert.match(response.body.id, /^[0-9]+$/);
    const keywords = (await given.server.request('GET', `/api/v2/filters/${filter.id}`, { token: given.alice.token })).body.keywords;
    assert.deepEqual(
      keywords.map((k: { keyword: string }) => k.keyword),
      ['foo', 'magic'],
    );
  });

  it('defaults whole_word to true and refuses a blank keyword', async () => {
    const filter = await filterOf(given.alice);
    const added = await given.server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: given.alice.token, json: { keyword: 'x' } });
    assert.equal(added.body.whole_word, true);
    const blank = await given.server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: given.alice.token, json: { keyword: '' } });
    assert.equal(blank.status, 422);
    assert.deepEqual(blank.body, { error: "Validation failed: Keyword can't be blank" });
  });

  it("refuses to add a keyword to another account's filter", async () => {
    const filter = await filterOf(given.bob);
    const response = await given.server.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: given.alice.token, form: 'keyword=magic' });
    assert.equal(response.status, 404);
    assert.equal((await given.server.request('GET', `/api/v2/filters/${filter.id}`, { token: given.bob.token })).body.keywords.length, 1);
  });

  it('shows one keyword to its owner only', async () => {
    const filter = await filterOf(given.alice, 'foo', false);
    const id = filter.keywords[0]!.id;
    const response = await given.server.request('GET', `/api/v2/filters/keywords/${id}`, { token: given.alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id, keyword: 'foo', whole_word: false });
    assert.equal((await given.server.request('GET', `/api/v2/filters/keywords/${id}`, { token: given.bob.token })).status, 404);
  });

  it('updates a keyword, with PUT or PATCH, for its owner only', async () => {
    const filter = await filterOf(given.alice);
    const id = filter.keywords[0]!.id;
    const response = await given.server.request('PUT', `/api/v2/filters/keywords/${id}`, { token: given.alice.token, form: 'keyword=updated' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id, keyword: 'updated', whole_word: false });
    const patched = await given.server.request('PATCH', `/api/v2/filters/keywords/${id}`, { token: given.alice.token, json: { whole_word: true } });
    assert.deepEqual(patched.body, { id, keyword: 'updated', whole_word: true });
    assert.equal((await given.server.request('PUT', `/api/v2/filters/keywords/${id}`, { token: given.bob.token, form: 'keyword=theirs' })).status, 404);
    assert.equal((await given.server.request('GET', `/api/v2/filters/keywords/${id}`, { token: given.alice.token })).body.keyword, 'updated');
  });

  it('deletes a keyword for its owner only, leaving the filter', async () => {
    const filter = await filterOf(given.alice);
    const id = filter.keywords[0]!.id;
    assert.equal((await given.server.request('DELETE', `/api/v2/filters/keywords/${id}`, { token: given.bob.token })).status, 404);
    const response = await given.server.request('DELETE', `/api/v2/filters/keywords/${id}`, { token: given.alice.token });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {});
    assert.equal((await given.server.request('GET', `/api/v2/filters/keywords/${id}`, { token: given.alice.token })).status, 404);
    assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${filter.id}`, { token: given.alice.token })).body.keywords, []);
  });
});
