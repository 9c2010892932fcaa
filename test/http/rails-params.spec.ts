import assert from 'node:assert/strict';
import { HttpError } from '../../src/http/http-errors.ts';
import { PARAM_LIMITS, type ParseMeter } from '../../src/http/param-limits.ts';
import { railsParams, splitName } from '../../src/http/rails-params.ts';

const parse = (query: string, meter?: ParseMeter) => railsParams(new URLSearchParams(query), meter);
/** The parsed value as plain JSON, to compare with literals (parsed hashes have no prototype). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

function everyHash(value: unknown, visit: (hash: object) => void): void {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) visit(value);
  for (const child of Object.values(value)) everyHash(child, visit);
}

const refusedWith = (message: RegExp) => (error: unknown) => {
  assert.ok(error instanceof HttpError);
  assert.equal(error.status, 400);
  assert.match(error.message, message);
  return true;
};

const counting = () => {
  let steps = 0;
  return { meter: { step: (n = 1) => void (steps += n) }, steps: () => steps };
};

describe('Rails-style form parameters', () => {
  it('reads plain keys and appends [] keys to a list', () => {
    assert.deepEqual(plain(parse('title=magic&context[]=home&context[]=public')), { title: 'magic', context: ['home', 'public'] });
  });

  it('groups [][key] pairs into one hash until a key repeats', () => {
    assert.deepEqual(
      plain(parse('keywords_attributes[][id]=1&keywords_attributes[][keyword]=a&keywords_attributes[][id]=2&keywords_attributes[][_destroy]=1')),
      {
        keywords_attributes: [
          { id: '1', keyword: 'a' },
          { id: '2', _destroy: '1' },
        ],
      },
    );
  });

  it('starts a new hash when the last one already holds the nested key', () => {
    assert.deepEqual(plain(parse('a[][b][c]=1&a[][b][d]=2&a[][b][c]=3')), { a: [{ b: { c: '1', d: '2' } }, { b: { c: '3' } }] });
    assert.deepEqual(plain(parse('a[][b]=1&a[][]=2')), { a: [{ b: '1', '': '2' }] });
    assert.deepEqual(plain(parse('a[]=1&a[][b]=2')), { a: ['1', { b: '2' }] });
  });

  it('keeps indexed hashes as hashes keyed by index', () => {
    assert.deepEqual(plain(parse('keywords_attributes[0][keyword]=tv&keywords_attributes[1][keyword]=radio')), {
      keywords_attributes: { '0': { keyword: 'tv' }, '1': { keyword: 'radio' } },
    });
  });

  it('lets a later value replace an earlier one of another shape', () => {
    assert.deepEqual(plain(parse('a=1&a[b]=2')), { a: { b: '2' } });
    assert.deepEqual(plain(parse('a[b]=1&a[]=2')), { a: ['2'] });
    assert.deepEqual(plain(parse('a[]=1&a=2')), { a: '2' });
  });

  it('decodes percent-escapes and plus signs, and skips pairs without a name', () => {
    assert.deepEqual(plain(parse('title=two+words%21&context%5B%5D=home&=x')), { title: 'two words!', context: ['home'] });
  });

  it('keeps a malformed name as a plain key instead of failing', () => {
    assert.deepEqual(plain(parse('a[b=1&c]=2&[x]=3&d[e]f=4&g[h[i]]=5&j]k[l]=6&m[n]o]=7&p[q[r]=8')), {
      'a[b': '1',
      'c]': '2',
      '[x]': '3',
      'd[e]f': '4',
      'g[h[i]]': '5',
      'j]k[l]': '6',
      'm[n]o]': '7',
      'p[q[r]': '8',
    });
    assert.deepEqual(splitName('a[b][]'), ['a', 'b', '']);
    assert.deepEqual(splitName('a'), ['a']);
  });

  it('builds every hash without a prototype', () => {
    const params = parse('a[b][c]=1&l[][x]=2&i[0][y]=3');
    let hashes = 0;
    everyHash(params, (hash) => {
      hashes += 1;
      assert.equal(Object.getPrototypeOf(hash), null);
    });
    assert.equal(hashes, 6);
  });

  it('drops every pair that names __proto__, constructor or prototype, and changes no prototype', () => {
    const before = Object.getOwnPropertyNames(Object.prototype);
    const params = parse('__proto__[x]=1&a[__proto__][x]=1&constructor[prototype][x]=1&b[][__proto__]=1&c[constructor]=1&prototype=1&__proto__=1&title=kept');
    assert.deepEqual(plain(params), { title: 'kept' });
    assert.deepEqual(Object.keys(params), ['title']);
    assert.equal(({} as Record<string, unknown>).x, undefined);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype), before);
  });

  it(`accepts ${PARAM_LIMITS.depth} levels of brackets and refuses one more with a 400`, () => {
    const name = (levels: number) => `title${'[a]'.repeat(levels)}`;
    assert.equal(splitName(name(PARAM_LIMITS.depth)).length, PARAM_LIMITS.depth + 1);
    assert.throws(() => parse(`${name(PARAM_LIMITS.depth + 1)}=x`), refusedWith(/nested deeper than 32 levels/));
    assert.throws(() => parse(`${name(10_000)}=x`), refusedWith(/nested deeper/));
    assert.throws(() => parse(`keywords_attributes${'[][x]'.repeat(20_000)}=1`), refusedWith(/nested deeper/));
  });

  it(`accepts ${PARAM_LIMITS.params} parameters and refuses one more with a 400`, () => {
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
    assert.equal(Object.keys(parse(pairs(PARAM_LIMITS.params))).length, PARAM_LIMITS.params);
    assert.throws(() => parse(pairs(PARAM_LIMITS.params + 1)), refusedWith(/More than 4096 parameters/));
  });

  it(`accepts ${PARAM_LIMITS.listItems} items in a list and refuses one more with a 400`, () => {
    const items = (n: number, name: string) => Array.from({ length: n }, () => `${name}=1`).join('&');
    assert.equal((parse(items(PARAM_LIMITS.listItems, 'context[]')).context as string[]).length, PARAM_LIMITS.listItems);
    assert.throws(() => parse(items(PARAM_LIMITS.listItems + 1, 'context[]')), refusedWith(/More than 1000 items in one list/));
    assert.throws(() => parse(items(PARAM_LIMITS.listItems + 1, 'keywords_attributes[][x]')), refusedWith(/More than 1000 items/));
  });

  it('does work in proportion to the input, for the shapes that were quadratic', () => {
    // The deepest names allowed, list groups at every level, and many pairs: steps per input character stay flat.
    const shapes = [
      (n: number) => Array.from({ length: n }, () => `k${'[][x]'.repeat(PARAM_LIMITS.depth / 2)}=1`),
      (n: number) => Array.from({ length: n }, (_, i) => `k${'[a]'.repeat(PARAM_LIMITS.depth - 1)}[${i}]=1`),
      (n: number) => Array.from({ length: n }, () => `keywords_attributes[][x]=1`),
      (n: number) => Array.from({ length: n }, () => `${'k'.repeat(1000)}[${'x'.repeat(1000)}]=1`),
      (n: number) => Array.from({ length: n }, (_, i) => `${'k'.repeat(1000)}${i}=1`),
      (n: number) => Array.from({ length: n }, (_, i) => `k${i}[${'x'.repeat(1000)}=1`),
    ];
    for (const shape of shapes) {
      const ratios = [16, 64, 256, 900].map((n) => {
        const pairs = shape(n);
        const input = pairs.join('&');
        const { meter, steps } = counting();
        parse(input, meter);
        // The meter sees at least every character of every name (each is scanned once), so it cannot undercount.
        const names = pairs.reduce((sum, pair) => sum + pair.indexOf('='), 0);
        assert.ok(steps() >= names, `${steps()} steps for ${names} name characters`);
        return steps() / input.length;
      });
      for (const ratio of ratios) assert.ok(ratio <= 2, `steps per character ${ratios.join(', ')}`);
      assert.ok(ratios.at(-1)! <= ratios[0]! * 1.1, `steps per character grow with the input: ${ratios.join(', ')}`);
    }
  });
});
