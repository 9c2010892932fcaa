import assert from 'node:assert/strict';
import { ListingCache } from '../../src/http/listing-cache.ts';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { filterView } from '../support/filter-views.ts';

const filter = (accountId: string, title: string): FilterView => filterView(accountId, { title, keywords: [], revision: 1 });

/** A read store whose listings are answered when the test says so, counting every listing read. */
function heldStore(accountId: string) {
  const store = {
    stamp: '1:1',
    title: 'first',
    reads: 0,
    release: [] as ((fail?: Error) => void)[],
    changeStamp: () => store.stamp,
    listFilters: (asked: string): Promise<FilterView[]> => {
      store.reads += 1;
      const title = store.title;
      return new Promise((resolve, reject) => store.release.push((fail) => (fail ? reject(fail) : resolve(asked === accountId ? [filter(asked, title)] : []))));
    },
  };
  return store;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const titles = (body: Buffer): string[] => (JSON.parse(body.toString()) as { title: string }[]).map((f) => f.title);

describe('the listing cache under concurrent requests', () => {
  it('given a change, when many requests for one account miss together, then the listing is built once for all of them', async () => {
    const accountId = newId();
    const store = heldStore(accountId);
    const cache = new ListingCache(store as unknown as ReadStore, 'v2');
    const answers = Promise.all(Array.from({ length: 20 }, () => cache.listing(accountId)));
    await nextTurn();
    assert.equal(store.reads, 1, 'twenty requests, one read of the read model');
    store.release.splice(0).forEach((go) => go());
    const bodies = await answers;
    assert.ok(bodies.every((body) => body === bodies[0]));
    assert.deepEqual(titles(bodies[0]!), ['first']);
    await nextTurn();
    assert.deepEqual(titles(await cache.listing(accountId)), ['first'], 'kept: answered without a read');
    assert.equal(store.reads, 1);
  });

  it('given a build under way, when a request sees a newer stamp, then it reads again and is answered what is newer', async () => {
    const accountId = newId();
    const store = heldStore(accountId);
    const cache = new ListingCache(store as unknown as ReadStore, 'v2');
    const older = cache.listing(accountId);
    await nextTurn();
    store.stamp = '1:2';
    store.title = 'renamed';
    const newer = cache.listing(accountId);
    await nextTurn();
    assert.equal(store.reads, 2, 'the newer stamp does not share the older build');
    store.release.splice(0).forEach((go) => go());
    assert.deepEqual(titles(await older), ['first']);
    assert.deepEqual(titles(await newer), ['renamed']);
    await nextTurn();
    assert.deepEqual(titles(await cache.listing(accountId)), ['renamed']);
  });

  it('given a build that fails, when its sharers are answered, then they all fail and the next request builds again', async () => {
    const accountId = newId();
    const store = heldStore(accountId);
    const cache = new ListingCache(store as unknown as ReadStore, 'v2');
    const shared = [cache.listing(accountId), cache.listing(accountId)];
    await nextTurn();
    store.release.splice(0).forEach((go) => go(new Error('the store is gone')));
    for (const answer of shared) await assert.rejects(answer, /the store is gone/);
    assert.equal(store.reads, 1);
    await nextTurn();
    const again = cache.listing(accountId);
    await nextTurn();
    assert.equal(store.reads, 2, 'a failed build is not kept');
    store.release.splice(0).forEach((go) => go());
    assert.deepEqual(titles(await again), ['first']);
  });
});
