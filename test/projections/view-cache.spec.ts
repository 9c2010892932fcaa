import assert from 'node:assert/strict';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import { estimatedBytes, ViewCache } from '../../src/projections/runtime/view-cache.ts';

const view = (id: string, statuses = 0): FilterView => ({
  id,
  accountId: '1',
  title: 't',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [],
  statuses: Array.from({ length: statuses }, (_, i) => ({ id: `${id}${i}`, statusId: `${i}` })),
  revision: 0,
  deleted: false,
});

describe('View cache', () => {
  it('lets the least recently used view go first once it holds as many views as it may', () => {
    const cache = new ViewCache({ views: 2, bytes: Infinity });
    cache.remember(view('1'));
    cache.remember(view('2'));
    cache.get('1');
    cache.remember(view('3'));
    assert.deepEqual([cache.get('1')?.id, cache.get('2'), cache.get('3')?.id], ['1', undefined, '3']);
    assert.equal(cache.size, 2);
  });

  it('bounds the estimated size too: one large view takes the room of many small ones', () => {
    const small = estimatedBytes(view('1'));
    const large = view('9', 200);
    assert.ok(estimatedBytes(large) > 50 * small);
    const cache = new ViewCache({ views: Infinity, bytes: estimatedBytes(large) + 2 * small });
    for (const id of ['1', '2', '3', '4']) cache.remember(view(id));
    cache.remember(large);
    assert.equal(cache.get('9'), large);
    assert.ok(cache.size <= 3, `${cache.size} views`);
    assert.equal(cache.get('1'), undefined);
  });

  it('counts a view stored again once, at its new size', () => {
    const cache = new ViewCache({ views: Infinity, bytes: 3 * estimatedBytes(view('1')) });
    for (let i = 0; i < 10; i += 1) cache.remember(view('1'));
    cache.remember(view('2'));
    assert.equal(cache.size, 2);
  });

  it('is complete, when started so, until it lets a view go', () => {
    assert.equal(new ViewCache().complete, false, 'a cache knows nothing of what is stored unless told');
    const cache = new ViewCache({ views: 2, bytes: Infinity }, true);
    cache.remember(view('1'));
    cache.remember(view('2'));
    cache.remember(view('1'));
    assert.equal(cache.complete, true);
    cache.remember(view('3'));
    assert.equal(cache.complete, false);
  });
});
