import assert from 'node:assert/strict';
import { HttpError } from '../../src/http/http-errors.ts';
import { jsonParams } from '../../src/http/json-params.ts';
import { PARAM_LIMITS } from '../../src/http/param-limits.ts';

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const refused = (message: RegExp) => (error: unknown) => error instanceof HttpError && error.status === 400 && message.test(error.message);
const nested = (levels: number): unknown => (levels === 0 ? 'x' : { a: nested(levels - 1) });

describe('JSON body parameters', () => {
  it('keeps JSON types and structure', () => {
    const body = { title: 't', n: 1.5, flag: false, none: null, context: ['home'], keywords_attributes: [{ keyword: 'k', whole_word: true }] };
    assert.deepEqual(plain(jsonParams(body)), body);
  });

  it('copies objects without a prototype and drops constructor and prototype keys at every level', () => {
    const body = JSON.parse('{"constructor":{"prototype":{"x":1}},"a":{"prototype":1,"b":[{"constructor":1,"c":2}]},"title":"t"}');
    const params = jsonParams(body);
    assert.deepEqual(plain(params), { a: { b: [{ c: 2 }] }, title: 't' });
    assert.equal(Object.getPrototypeOf(params), null);
    assert.equal(Object.getPrototypeOf(params.a), null);
    assert.equal(Object.getPrototypeOf((params.a as { b: object[] }).b[0]), null);
  });

  it('drops an own __proto__ key, should one reach it', () => {
    const body = JSON.parse('{"__proto__":{"x":1},"title":"t"}');
    assert.deepEqual(Object.keys(jsonParams(body)), ['title']);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [[1], 'x', 1, null]) assert.throws(() => jsonParams(body), refused(/parsing request parameters/));
  });

  it(`accepts ${PARAM_LIMITS.depth} levels of nesting and refuses one more, as for form names`, () => {
    // {"a": {"a": "x"}} is a[a]=x: one level.
    assert.doesNotThrow(() => jsonParams(nested(PARAM_LIMITS.depth + 1)));
    assert.throws(() => jsonParams(nested(PARAM_LIMITS.depth + 2)), refused(/nested deeper than 32 levels/));
    const deepList = JSON.parse(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    assert.throws(() => jsonParams(deepList), refused(/nested deeper/));
  });

  it(`refuses more than ${PARAM_LIMITS.params} values or ${PARAM_LIMITS.listItems} items in one list`, () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));
    assert.doesNotThrow(() => jsonParams(wide(PARAM_LIMITS.params)));
    assert.throws(() => jsonParams(wide(PARAM_LIMITS.params + 1)), refused(/More than 4096 parameters/));
    assert.doesNotThrow(() => jsonParams({ context: Array(PARAM_LIMITS.listItems).fill('home') }));
    assert.throws(() => jsonParams({ context: Array(PARAM_LIMITS.listItems + 1).fill('home') }), refused(/More than 1000 items/));
    const lists = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`l${i}`, Array(500).fill(1)]));
    assert.throws(() => jsonParams(lists), refused(/More than 4096 parameters/));
  });

  it('visits each value once', () => {
    let steps = 0;
    const body = { a: Array.from({ length: 800 }, (_, i) => ({ k: i, l: [i, i] })) };
    jsonParams(body, { step: (n = 1) => void (steps += n) });
    assert.equal(steps, 1 + 800 * 5);
  });
});
