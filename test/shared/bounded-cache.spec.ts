import assert from 'node:assert/strict';
import { TokenCache } from '../../src/accounts/token-cache.ts';
import { BoundedCache } from '../../src/shared/bounded-cache.ts';

const grant = { tokenId: '1', account: { id: '2', username: 'u', createdAt: '2024-01-01T00:00:00.000Z' }, scopes: ['read'] };

describe('the one bounded cache (least recently used out first)', () => {
  it('given three entries and room for two, when the first was read since, then the second goes', () => {
    const cache = new BoundedCache<string, number>({ entries: 2, weight: 100 });
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.set('c', 3, 1), 1, 'one entry pushed out');
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => cache.peek(key)),
      [1, undefined, 3],
    );
  });

  it('given a weight bound, when a heavy entry arrives, then older ones go until the sum fits, and the newest always stays', () => {
    const cache = new BoundedCache<string, string>({ entries: 10, weight: 10 });
    cache.set('a', 'a', 4);
    cache.set('b', 'b', 4);
    cache.set('c', 'c', 5);
    assert.deepEqual([cache.peek('a'), cache.peek('b'), cache.peek('c')], [undefined, 'b', 'c']);
    assert.equal(cache.weight, 9);
    cache.set('huge', 'huge', 50);
    assert.equal(cache.size, 1);
    assert.equal(cache.peek('huge'), 'huge');
  });

  it('given entries, when cleared, then nothing is kept and the weight starts again from zero', () => {
    const cache = new BoundedCache<string, number>({ entries: 3, weight: 3 });
    cache.set('a', 1, 2);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.weight, 0);
    cache.set('b', 2, 1);
    cache.set('c', 3, 1);
    assert.deepEqual([cache.peek('b'), cache.peek('c')], [2, 3], 'a stale weight would push b out');
  });

  it('the token cache keeps a token in use when full, instead of forgetting every token at once', () => {
    const cache = new TokenCache(() => 1, 2);
    cache.remember('busy', { grant, lastUsedMs: 0 });
    cache.remember('idle', { grant, lastUsedMs: 0 });
    assert.ok(cache.get('busy'));
    cache.remember('new', { grant, lastUsedMs: 0 });
    assert.ok(cache.get('busy'), 'the token used lately is still cached');
    assert.ok(cache.get('new'));
    assert.equal(cache.get('idle'), undefined);
  });
});
