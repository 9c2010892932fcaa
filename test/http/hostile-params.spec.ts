import assert from 'node:assert/strict';
import { PARAM_LIMITS } from '../../src/http/param-limits.ts';
import { serverWithTwoAccounts, type ApiResponse, type RequestOptions } from '../support/test-server.ts';

// The server runs in this process, so a polluted prototype would show here too.
const objectNames = Object.getOwnPropertyNames(Object.prototype);
const arrayNames = Object.getOwnPropertyNames(Array.prototype);

interface Vector {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly options: RequestOptions;
  /** 200: the hostile keys were ignored; 400/422: refused, and then nothing may be stored. */
  readonly status: number;
}

const multipart = (fields: [string, string][]) => {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return form;
};

const vectors: Vector[] = [
  { name: 'query __proto__[x]', method: 'GET', path: '/api/v1/filters?__proto__[x]=1', options: {}, status: 200 },
  { name: 'query constructor[prototype][x]', method: 'GET', path: '/api/v2/filters?constructor[prototype][x]=1&__proto__=1', options: {}, status: 200 },
  { name: 'query __proto__ on a write', method: 'POST', path: '/api/v2/filters?__proto__[title]=evil&title=q&context[]=home', options: {}, status: 200 },
  {
    name: 'form __proto__[title]',
    method: 'POST',
    path: '/api/v2/filters',
    options: { form: '__proto__[title]=evil&__proto__[context][]=home&title=t&context[]=home' },
    status: 200,
  },
  { name: 'form title[__proto__]', method: 'POST', path: '/api/v2/filters', options: { form: 'title[__proto__]=evil&context[]=home' }, status: 422 },
  {
    name: 'form keywords_attributes[__proto__]',
    method: 'POST',
    path: '/api/v2/filters',
    options: { form: 'title=t&context[]=home&keywords_attributes[__proto__][keyword]=x&keywords_attributes[][constructor]=y' },
    status: 200,
  },
  {
    name: 'form v1 __proto__',
    method: 'POST',
    path: '/api/v1/filters',
    options: { form: 'phrase=p&context[]=home&__proto__[irreversible]=1&constructor[prototype][whole_word]=0' },
    status: 200,
  },
  {
    name: 'multipart __proto__ fields',
    method: 'POST',
    path: '/api/v2/filters',
    options: {
      multipart: multipart([
        ['__proto__', 'x'],
        ['__proto__[title]', 'evil'],
        ['title', 't'],
        ['context[]', 'home'],
        ['constructor[prototype][x]', '1'],
      ]),
    },
    status: 200,
  },
  {
    name: 'JSON __proto__',
    method: 'POST',
    path: '/api/v2/filters',
    options: { raw: { contentType: 'application/json', body: '{"__proto__":{"title":"evil"},"title":"t","context":["home"]}' } },
    status: 400,
  },
  {
    name: 'JSON nested __proto__',
    method: 'POST',
    path: '/api/v2/filters',
    options: { raw: { contentType: 'application/json', body: '{"title":"t","context":["home"],"keywords_attributes":{"__proto__":{"keyword":"x"}}}' } },
    status: 400,
  },
  {
    name: 'JSON constructor.prototype',
    method: 'POST',
    path: '/api/v2/filters',
    options: { json: { constructor: { prototype: { x: 1 } }, prototype: 1, title: 't', context: ['home'] } },
    status: 200,
  },
];

const deep = (levels: number) => `title${'[a]'.repeat(levels)}=x&context[]=home`;
const limitVectors: Vector[] = [
  { name: 'a form name 10,000 levels deep', method: 'POST', path: '/api/v2/filters', options: { form: deep(10_000) }, status: 400 },
  {
    name: 'keywords_attributes[][x] 20,000 times in one name',
    method: 'POST',
    path: '/api/v2/filters',
    options: { form: `title=t&context[]=home&keywords_attributes${'[][x]'.repeat(20_000)}=1` },
    status: 400,
  },
  {
    name: '5,000 keywords_attributes[][x] pairs',
    method: 'POST',
    path: '/api/v2/filters',
    options: { form: `title=t&context[]=home&${'keywords_attributes[][x]=1&'.repeat(5000)}` },
    status: 400,
  },
  {
    name: `${PARAM_LIMITS.listItems + 1} contexts`,
    method: 'POST',
    path: '/api/v2/filters',
    options: { form: `title=t&${'context[]=home&'.repeat(PARAM_LIMITS.listItems + 1)}` },
    status: 400,
  },
  { name: 'a query 1,000 levels deep', method: 'GET', path: `/api/v2/filters?${deep(1000)}`, options: {}, status: 400 },
  {
    name: 'JSON 100,000 levels deep',
    method: 'POST',
    path: '/api/v2/filters',
    options: { raw: { contentType: 'application/json', body: `{"title":"t","context":["home"],"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}` } },
    status: 400,
  },
  {
    name: 'JSON with 5,000 values',
    method: 'POST',
    path: '/api/v2/filters',
    options: { json: { title: 't', context: ['home'], x: Array.from({ length: 50 }, () => Array(100).fill(0)) } },
    status: 400,
  },
  {
    name: 'multipart with a field 1,000 levels deep',
    method: 'POST',
    path: '/api/v2/filters',
    options: {
      multipart: multipart([
        ['title', 't'],
        ['context[]', 'home'],
        [`x${'[a]'.repeat(1000)}`, '1'],
      ]),
    },
    status: 400,
  },
];

describe('hostile parameters', () => {
  const given = serverWithTwoAccounts();

  const eventCount = async () => (await given.server.service.stores.events.readAll({ after: null, limit: 100_000 })).length;

  async function everythingElseStillWorks(): Promise<void> {
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype), objectNames);
    assert.deepEqual(Object.getOwnPropertyNames(Array.prototype), arrayNames);
    assert.equal(({} as Record<string, unknown>).title, undefined);
    const other = await given.server.request('GET', '/api/v2/filters', { token: given.bob.token });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.deepEqual(other.body, []);
    const health = await given.server.request('GET', '/health');
    assert.equal(health.status, 200);
    assert.match(health.type, /^application\/json/);
    const webmail = await given.server.request('GET', '/webmail/');
    assert.equal(webmail.status, 200);
    assert.match(webmail.type, /^text\/html/);
  }

  function expectAnswer(vector: Vector, response: ApiResponse): void {
    assert.equal(response.status, vector.status, JSON.stringify(response.body));
    assert.match(response.type, /^application\/json/);
    if (vector.status >= 400) assert.equal(typeof response.body.error, 'string');
  }

  for (const vector of [...vectors, ...limitVectors]) {
    it(`${vector.name}: answers ${vector.status} JSON, stores nothing it refused, and harms no later request`, async () => {
      const before = await eventCount();
      const response = await given.server.request(vector.method, vector.path, { token: given.alice.token, ...vector.options });
      expectAnswer(vector, response);
      if (vector.status >= 400) {
        assert.equal(await eventCount(), before);
        assert.deepEqual((await given.server.request('GET', '/api/v2/filters', { token: given.alice.token })).body, []);
      }
      await everythingElseStillWorks();
    });
  }

  it('a read-only token gets the same answer for a hostile query', async () => {
    const readOnly = await given.server.token(given.alice, ['read']);
    const response = await given.server.request('GET', '/api/v1/filters?__proto__[x]=1', { token: readOnly });
    assert.equal(response.status, 200);
    await everythingElseStillWorks();
  });

  it('ignores the hostile keys of an accepted write and keeps the rest', async () => {
    const form = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form: '__proto__[title]=evil&title=t&context[]=home' });
    assert.equal(form.body.title, 't');
    const keywords = await given.server.request('POST', '/api/v2/filters', {
      token: given.alice.token,
      form: 'title=k&context[]=home&keywords_attributes[__proto__][keyword]=x&keywords_attributes[][keyword]=kept',
    });
    assert.deepEqual(
      keywords.body.keywords.map((k: { keyword: string }) => k.keyword),
      ['kept'],
    );
    const v1 = await given.server.request('POST', '/api/v1/filters', { token: given.alice.token, form: 'phrase=p&context[]=home&__proto__[irreversible]=1' });
    assert.equal(v1.body.irreversible, false);
  });

  it('reads multipart [] groups in the order they were sent', async () => {
    const body = multipart([
      ['title', 'ordered'],
      ['context[]', 'home'],
      ['keywords_attributes[][keyword]', 'one'],
      ['keywords_attributes[][whole_word]', '0'],
      ['keywords_attributes[][keyword]', 'two'],
      ['keywords_attributes[][whole_word]', '1'],
    ]);
    const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, multipart: body });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(
      response.body.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]),
      [
        ['one', false],
        ['two', true],
      ],
    );
  });

  it(`accepts a form at the limits: ${PARAM_LIMITS.depth} levels, ${PARAM_LIMITS.listItems} list items`, async () => {
    const form = `title=t&${'context[]=home&'.repeat(PARAM_LIMITS.listItems - 1)}x${'[a]'.repeat(PARAM_LIMITS.depth)}=1`;
    const response = await given.server.request('POST', '/api/v2/filters', { token: given.alice.token, form });
    assert.equal(response.status, 200, JSON.stringify(response.body).slice(0, 200));
    assert.equal(response.body.context.length, PARAM_LIMITS.listItems - 1);
  });
});
