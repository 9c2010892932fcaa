import assert from 'node:assert/strict';
import { serverWithTwoAccounts, type ApiResponse } from '../support/test-server.ts';

const jsonError = (response: ApiResponse, status: number) => {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.match(response.type, /^application\/json/);
  assert.equal(typeof response.body.error, 'string');
};

describe('request bodies, bad input and tokens', () => {
  const given = serverWithTwoAccounts();

  it('reads multipart/form-data with Rails brackets', async () => {
    const body = new FormData();
    body.append('title', 'multi');
    body.append('context[]', 'home');
    body.append('context[]', 'account');
    body.append('keywords_attributes[0][keyword]', 'tv');
    body.append('keywords_attributes[0][whole_word]', '0');
    const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, multipart: body });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(response.body.context, ['home', 'account']);
    assert.deepEqual(
      response.body.keywords.map((k: any) => [k.keyword, k.whole_word]),
      [['tv', false]],
    );
  });

  it('reads booleans as true/false/1/0 and expires_in as a number or numeric string', async () => {
    const form = 'phrase=a&context[]=home&irreversible=1&whole_word=0&expires_in=60';
    const v1 = await given.server.request('POST', '/api/v1/filters', { token: given.alice.token, form });
    assert.equal(v1.body.irreversible, true);
    assert.equal(v1.body.whole_word, false);
    assert.notEqual(v1.body.expires_at, null);
    const json = await given.server.request('POST', '/api/v1/filters', {
      token: given.alice.token,
      json: { phrase: 'b', context: ['home'], irreversible: 'false', whole_word: 'true', expires_in: 60 },
    });
    assert.equal(json.body.irreversible, false);
    assert.equal(json.body.whole_word, true);
    assert.notEqual(json.body.expires_at, null);
  });

  it('clears expiry with a JSON null expires_in', async () => {
    const { id } = (
      await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, json: { title: 't', context: ['home'], expires_in: 60 } })
    ).body;
    const response = await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, json: { expires_in: null } });
    assert.equal(response.body.expires_at, null);
  });

  it('refuses a non-numeric or absurd expires_in with 422 rather than expiring at once', async () => {
    for (const expires_in of ['soon', '1e400', 1e20]) {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, json: { title: 't', context: ['home'], expires_in } });
      jsonError(response, 422);
      assert.equal(response.body.error, 'Validation failed: Expires in is not a number');
    }
  });

  it('answers 400 JSON for malformed JSON and a non-object JSON body', async () => {
    for (const body of ['{"title": ', '"title"', 'null']) {
      const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, raw: { contentType: 'application/json', body } });
      jsonError(response, 400);
      assert.deepEqual(response.body, { error: 'Error occurred while parsing request parameters' }, body);
    }
  });

  it('takes an empty JSON or form body as no parameters', async () => {
    const token = given.alice.token;
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token, form: 'title=t&context[]=home' })).body;
    for (const contentType of ['application/json', 'application/x-www-form-urlencoded']) {
      const response = await given.server.request('PUT', `/api/v2/filters/${id}`, { token, raw: { contentType, body: '' } });
      assert.equal(response.status, 200, `${contentType}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.title, 't');
    }
  });

  it('answers 422 JSON for parameters of the wrong type, naming them', async () => {
    const response = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      json: { title: { $gt: '' }, context: 'home', keywords_attributes: [{ keyword: ['x'] }] },
    });
    jsonError(response, 422);
    assert.equal(response.body.error, 'Validation failed: title is invalid, keywords_attributes[0][keyword] is invalid');
    jsonError(await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, json: { title: 't', context: [1] } }), 422);
    jsonError(
      await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, json: { title: 't', context: ['home'], filter_action: 1 } }),
      422,
    );
  });

  it("answers Mastodon's 422 for a context that is not a list (form or JSON), on create and update, v2 and v1", async () => {
    const blank = "Validation failed: Context can't be blank, Context None or invalid context supplied";
    const token = given.alice.token;
    for (const options of [
      { form: 'title=t&context=home' },
      { json: { title: 't', context: 'home' } },
      { json: { title: 't', context: null } },
      { json: { title: 't', context: { a: 'home' } } },
    ]) {
      const response = await given.server.request('POST', '/api/v2/filters', { token, ...options });
      jsonError(response, 422);
      assert.equal(response.body.error, blank, JSON.stringify(options));
    }
    const v1 = await given.server.request('POST', '/api/v1/filters', { token, form: 'phrase=p&context=home' });
    jsonError(v1, 422);
    assert.equal(v1.body.error, blank);
    assert.deepEqual((await given.server.request('GET', '/api/v2/filters', { token })).body, []);
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token, form: 'title=t&context[]=home' })).body;
    const update = await given.server.request('PUT', `/api/v2/filters/${id}`, { token, json: { context: 'public' } });
    jsonError(update, 422);
    assert.equal(update.body.error, blank);
    assert.deepEqual((await given.server.request('GET', `/api/v2/filters/${id}`, { token })).body.context, ['home']);
  });

  it('leaves the context unchanged when an update does not send it', async () => {
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: 'title=t&context[]=home' })).body;
    const response = await given.server.request('PUT', `/api/v2/filters/${id}`, { token: given.alice.token, form: 'title=u' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.context, ['home']);
  });

  it('answers 413 JSON for an oversized body', async () => {
    const response = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      json: { title: 'x'.repeat(400 * 1024), context: ['home'] },
    });
    jsonError(response, 413);
    assert.deepEqual(response.body, { error: 'Request entity too large' });
  });

  it('answers 413 JSON for an oversized multipart field and for any file upload (filters take none)', async () => {
    const big = new FormData();
    big.append('title', 'x'.repeat(400 * 1024));
    big.append('context[]', 'home');
    const tooBig = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, multipart: big });
    jsonError(tooBig, 413);
    assert.deepEqual(tooBig.body, { error: 'Request entity too large' });
    const file = new FormData();
    file.append('title', 'x');
    file.append('context[]', 'home');
    file.append('upload', new Blob(['data']), 'a.txt');
    jsonError(await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, multipart: file }), 413);
  });

  it("answers JSON 404 Not Found for unknown routes and for a method without a route, as Mastodon's catch-all route", async () => {
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: 'title=t&context[]=home' })).body;
    const status = (await given.server.request('POST', `/api/v2/filters/${id}/statuses`, { token: given.alice.token, form: 'status_id=1' })).body.id;
    const unrouted: [string, string][] = [
      ['GET', '/api/v3/filters'],
      ['GET', '/nowhere'],
      ['PUT', '/api/v2/filters'],
      ['POST', `/api/v2/filters/${id}`],
      ['PUT', `/api/v2/filters/statuses/${status}`],
      ['PATCH', `/api/v2/filters/statuses/${status}`],
      ['POST', '/api/v1/filters/1'],
      ['DELETE', '/api/v1/filters'],
    ];
    for (const [method, path] of unrouted) {
      for (const token of [given.alice.token, undefined]) {
        const response = await given.server.request(method, path, { token, ...(method === 'GET' ? {} : { json: {} }) });
        jsonError(response, 404);
        assert.deepEqual(response.body, { error: 'Not Found' }, `${method} ${path}`);
        assert.equal(response.headers.get('allow'), null);
      }
    }
    const untouched = await given.server.request('GET', `/api/v2/filters/statuses/${status}`, { token: given.alice.token });
    assert.equal(untouched.status, 200);
  });

  it('takes a DELETE with a JSON body {}', async () => {
    const { id } = (await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: 'title=t&context[]=home' })).body;
    const response = await given.server.request('DELETE', `/api/v2/filters/${id}`, { token: given.alice.token, json: {} });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {});
  });

  it('answers 401 for a missing, empty, malformed or unknown token; a revoked one says so, as Mastodon', async () => {
    const revoked = await given.server.token(given.alice, ['read']);
    await given.server.service.stores.accounts.revokeToken(revoked);
    for (const authorization of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', `Bearer ${given.alice.token}x`, 'Bearer 123_abcdefghijklmnopqrstuvwxyz']) {
      const response = await given.server.request('GET', '/api/v2/filters', { headers: authorization === undefined ? {} : { authorization } });
      jsonError(response, 401);
      assert.deepEqual(response.body, { error: 'The access token is invalid' }, String(authorization));
    }
    const response = await given.server.request('GET', '/api/v2/filters', { headers: { authorization: `Bearer ${revoked}` } });
    assert.deepEqual([response.status, response.body], [401, { error: 'The access token was revoked' }]);
  });

  it('marks API answers as private and echoes a request id', async () => {
    const response = await given.server.request('GET', '/api/v2/filters', { token: given.alice.token, headers: { 'x-request-id': 'trace-1' } });
    assert.equal(response.headers.get('cache-control'), 'no-store');
    // Origin too, since CORS answers depend on it (as Mastodon's rack-cors adds it).
    assert.deepEqual(response.headers.get('vary')?.split(/,\s*/), ['Authorization', 'Origin']);
    assert.equal(response.headers.get('x-request-id'), 'trace-1');
  });

  it('answers /health with 200 JSON', async () => {
    const response = await given.server.request('GET', '/health');
    assert.equal(response.status, 200);
    // The body also says how each part is (see the health specs); a healthy service says ok with no problems.
    assert.equal(response.body.status, 'ok');
    assert.deepEqual(response.body.problems, []);
  });
});
