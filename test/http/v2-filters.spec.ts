import assert from 'node:assert/strict';
import { serverWithTwoAccounts, type ApiResponse, type TestAccount } from '../support/test-server.ts';

const isJson = (r: ApiResponse) => assert.match(r.type, /^application\/json/);
const magic = 'title=magic&context[]=home&filter_action=hide&keywords_attributes[][keyword]=magic';

describe('v2 filters over HTTP', () => {
  const given = serverWithTwoAccounts();

  const create = async (who: TestAccount, form = magic) => {
    const response = await given.server.request('POST', '/api/v2/filters', { token: who.token, form });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; keywords: { id: string }[] };
  };

  describe('GET /api/v2/filters', () => {
    it("lists exactly the caller's filters, ids as strings", async () => {
      const ids = [(await create(given.alice)).id, (await create(given.alice)).id];
      await create(given.bob);
      const response = await given.server.request('GET', '/api/v2/filters', { token: given.alice.token });
      assert.equal(response.status, 200);
      isJson(response);
      assert.deepEqual(new Set(response.body.map((f: { id: string }) => f.id)), new Set(ids));
    });

    it('is 403 for a token with only write scopes and 401 without a token', async () => {
      const writeOnly = await given.server.token(given.alice, ['write', 'write:filters']);
      assert.equal((await given.server.request('GET', '/api/v2/filters', { token: writeOnly })).status, 403);
      const anonymous = await given.server.request('GET', '/api/v2/filters', { headers: { authorization: '' } });
      assert.equal(anonymous.status, 401);
      isJson(anonymous);
      assert.deepEqual(anonymous.body, { error: 'The access token is invalid' });
    });

    it('accepts the broad read scope', async () => {
      const read = await given.server.token(given.alice, ['read']);
      assert.equal((await given.server.request('GET', '/api/v2/filters', { token: read })).status, 200);
    });
  });

  describe('POST /api/v2/filters', () => {
    it('creates an irreversible filter with a whole-word keyword by default', async () => {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: magic });
      assert.equal(response.status, 200);
      isJson(response);
      const { id, keywords, ...rest } = response.body;
      assert.match(id, /^[0-9]+$/);
      assert.deepEqual(rest, { title: 'magic', context: ['home'], expires_at: null, filter_action: 'hide', statuses: [] });
      assert.equal(keywords.length, 1);
      assert.equal(keywords[0].keyword, 'magic');
      assert.equal(keywords[0].whole_word, true);
      assert.equal(typeof keywords[0].id, 'string');
      const v1 = await given.server.request('GET', '/api/v1/filters', { token: given.alice.token });
      assert.equal(v1.body[0].irreversible, true);
    });

    it('defaults filter_action to warn and accepts JSON bodies', async () => {
      const response = await given.server.request('POST', '/api/v2/filters', {
        token: given.alice.token,
        json: { title: 'json', context: ['home', 'thread'], keywords_attributes: [{ keyword: 'a', whole_word: false }] },
      });
      assert.equal(response.status, 200);
      assert.equal(response.body.filter_action, 'warn');
      assert.deepEqual(response.body.context, ['home', 'thread']);
      assert.equal(response.body.keywords[0].whole_word, false);
    });

    it('is 403 for read scopes and 401 without a token', async () => {
      const readOnly = await given.server.token(given.alice, ['read', 'read:filters']);
      const forbidden = await given.server.request('POST', '/api/v2/filters', { token: readOnly, json: {} });
      assert.equal(forbidden.status, 403);
      assert.deepEqual(forbidden.body, { error: 'This action is outside the authorized scopes' });
      const anonymous = await given.server.request('POST', '/api/v2/filters', { headers: { authorization: '' }, form: magic });
      assert.equal(anonymous.status, 401);
      isJson(anonymous);
    });

    const refused = async (form: string, pattern: RegExp) => {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form });
      assert.equal(response.status, 422);
      isJson(response);
      assert.equal(typeof response.body.error, 'string');
      assert.match(response.body.error, pattern);
      assert.deepEqual((await given.server.request('GET', '/api/v2/filters', { token: given.alice.token })).body, []);
    };

    it('is 422 without a title', () =>
      refused('context[]=home&filter_action=hide&keywords_attributes[][keyword]=magic', /^Validation failed: Title can't be blank$/));
    it('is 422 without a context', () => refused('title=magic&filter_action=hide&keywords_attributes[][keyword]=magic', /Context can't be blank/));
    it('is 422 for the context shaolin', () => refused('title=magic&context[]=shaolin&filter_action=hide', /Context None or invalid context supplied/));
    it('is 422 for an unknown filter_action', () =>
      refused('title=magic&filter_action=imaginary_value&keywords_attributes[][keyword]=magic', /Action is not included/));
    it('is 422 for a title of 257 characters', () => refused(`title=${'t'.repeat(257)}&context[]=home`, /Title is too long \(maximum is 256 characters\)/));
    it('is 422 for a keyword of 513 characters', () =>
      refused(`title=t&context[]=home&keywords_attributes[][keyword]=${'k'.repeat(513)}`, /Keywords keyword is too long \(maximum is 512 characters\)/));

    it('is 404 for a keyword id on create, as Mastodon (#21727)', async () => {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: `${magic}&keywords_attributes[][id]=1` });
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { error: 'Record not found' });
    });

    it('ignores all-blank keyword rows', async () => {
      const body = await create(given.alice, 'title=t&context[]=home&keywords_attributes[0][keyword]=&keywords_attributes[1][keyword]=ok');
      assert.deepEqual(
        body.keywords.map((k: any) => k.keyword),
        ['ok'],
      );
    });

    it('sets expires_at from expires_in', async () => {
      const before = Date.now();
      const body: any = await create(given.alice, 'title=t&context[]=home&expires_in=3600');
      const at = Date.parse(body.expires_at);
      assert.ok(at >= before + 3600_000 - 1000 && at <= Date.now() + 3600_000 + 1000);
      assert.match(body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });
  });

  describe('GET /api/v2/filters/:id', () => {
    it('answers the owner with the filter', async () => {
      const { id } = await create(given.alice);
      const response = await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.alice.token });
      assert.equal(response.status, 200);
      isJson(response);
      assert.equal(response.body.id, id);
    });

    it("is 404 for another account's filter or an unknown id, 403 and 401 without rights", async () => {
      const { id } = await create(given.bob);
      for (const path of [`/api/v2/filters/${id}`, '/api/v2/filters/123', '/api/v2/filters/not-an-id']) {
        const response = await given.server.request('GET', path, { token: given.alice.token });
        assert.equal(response.status, 404, path);
        assert.deepEqual(response.body, { error: 'Record not found' });
      }
      const writeOnly = await given.server.token(given.bob, ['write', 'write:filters']);
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { token: writeOnly })).status, 403);
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { headers: { authorization: '' } })).status, 401);
    });
  });

  describe('PUT /api/v2/filters/:id', () => {
    it('updates title and context', async () => {
      const { id } = await create(given.alice);
      const response = await given.server.request('PUT', `/api/v2/filters/${id}`, {
        token: given.alice.token,
        form: 'title=updated&context[]=home&context[]=public',
      });
      assert.equal(response.status, 200);
      isJson(response);
      const stored = (await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.alice.token })).body;
      assert.equal(stored.title, 'updated');
      assert.deepEqual(stored.context, ['home', 'public']);
      assert.equal(stored.filter_action, 'hide', 'what was not sent stays');
    });

    it('is 422 for the context word and changes nothing', async () => {
      const { id } = await create(given.alice);
      const response = await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, form: 'title=updated&context[]=word' });
      assert.equal(response.status, 422);
      assert.match(response.body.error, /^Validation failed: Context None or invalid context supplied$/);
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.alice.token })).body.title, 'magic');
    });

    it('updates, removes and adds keywords through keywords_attributes', async () => {
      const filter = await create(given.alice, 'title=t&context[]=home&keywords_attributes[][keyword]=a&keywords_attributes[][keyword]=b');
      const [a, b] = filter.keywords;
      const form = [
        `keywords_attributes[0][id]=${a!.id}&keywords_attributes[0][keyword]=updated`,
        `keywords_attributes[1][id]=${b!.id}&keywords_attributes[1][_destroy]=1`,
        'keywords_attributes[2][keyword]=c&keywords_attributes[2][whole_word]=false',
      ].join('&');
      const response = await given.server.request('PUT', `/api/v2/filters/${filter.id}`, { token: given.alice.token, form });
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.keywords.map((k: any) => [k.keyword, k.whole_word]),
        [
          ['updated', true],
          ['c', false],
        ],
      );
      assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${filter.id}`, { token: given.alice.token })).body.keywords, response.body.keywords);
    });

    it('is 404 for a keyword of another filter', async () => {
      const mine = await create(given.alice);
      const theirs = await create(given.bob);
      const response = await given.server.request('PUT', `/api/v2/filters/${mine.id}`, {
        token: given.alice.token,
        form: `keywords_attributes[][id]=${theirs.keywords[0]!.id}&keywords_attributes[][keyword]=x`,
      });
      assert.equal(response.status, 404);
    });

    it('clears the expiry with an empty expires_in and leaves it alone when omitted', async () => {
      const { id } = await create(given.alice, 'title=t&context[]=home&expires_in=600');
      assert.notEqual((await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, form: 'title=u' })).body.expires_at, null);
      assert.equal((await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, form: 'expires_in=' })).body.expires_at, null);
    });

    it("is 404 on another account's filter, 403 with read scopes, 401 without a token", async () => {
      const { id } = await create(given.bob);
      const response = await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, form: 'title=mine' });
      assert.equal(response.status, 404);
      isJson(response);
      const readOnly = await given.server.token(given.bob, ['read', 'read:filters']);
      assert.equal((await given.server.request('PUT', `/api/v2/filters/${id}`, { token: readOnly, json: {} })).status, 403);
      assert.equal((await given.server.request('PUT', `/api/v2/filters/${id}`, { headers: { authorization: '' }, json: {} })).status, 401);
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.bob.token })).body.title, 'magic');
    });

    it('accepts PATCH like PUT', async () => {
      const { id } = await create(given.alice);
      const response = await given.server.request('PATCH', `/api/v2/filters/${id}`, { token: given.alice.token, json: { filter_action: 'blur' } });
      assert.equal(response.status, 200);
      assert.equal(response.body.filter_action, 'blur');
    });
  });

  describe('DELETE /api/v2/filters/:id', () => {
    it('removes the filter with its keywords and answers {}', async () => {
      const { id, keywords } = await create(given.alice);
      const response = await given.server.request('DELETE', `/api/v2/filters/${id}`, { token: given.alice.token });
      assert.equal(response.status, 200);
      isJson(response);
      assert.deepEqual(response.body, {});
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.alice.token })).status, 404);
      assert.equal((await given.server.request('GET', `/api/v1/filters/${keywords[0]!.id}`, { token: given.alice.token })).status, 404);
      assert.equal((await given.server.request('DELETE', `/api/v2/filters/${id}`, { token: given.alice.token })).status, 404);
    });

    it("is 404 for another account's filter, 403 with read scopes, 401 without a token", async () => {
      const { id } = await create(given.bob);
      const response = await given.server.request('DELETE', `/api/v2/filters/${id}`, { token: given.alice.token });
      assert.equal(response.status, 404);
      isJson(response);
      const readOnly = await given.server.token(given.bob, ['read', 'read:filters']);
      assert.equal((await given.server.request('DELETE', `/api/v2/filters/${id}`, { token: readOnly })).status, 403);
      assert.equal((await given.server.request('DELETE', `/api/v2/filters/${id}`, { headers: { authorization: '' } })).status, 401);
      assert.equal((await given.server.request('GET', `/api/v2/filters/${id}`, { token: given.bob.token })).status, 200);
    });
  });
});
