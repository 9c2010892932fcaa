import assert from 'node:assert/strict';
import { AccountMatchers, type FilterSource } from '../../src/matching/account-matchers.ts';
import type { MatchableFilter } from '../../src/matching/compiled-filters.ts';
import { filter, NOW, status } from './filter-fixtures.ts';

/** A read model stand-in: versions and filters per account, counting the filter reads. */
class CountingSource implements FilterSource {
  readonly filters = new Map<string, MatchableFilter[]>();
  readonly versions = new Map<string, number>();
  lists = 0;

  set(accountId: string, filters: MatchableFilter[]): void {
    this.filters.set(accountId, filters);
    this.versions.set(accountId, (this.versions.get(accountId) ?? 0) + 1);
  }

  async filtersVersion(accountId: string): Promise<string> {
    return String(this.versions.get(accountId) ?? 0);
  }

  async listFilters(accountId: string): Promise<readonly MatchableFilter[]> {
    this.lists++;
    return this.filters.get(accountId) ?? [];
  }
}

const titles = async (matchers: AccountMatchers, accountId: string, text: string) =>
  (await matchers.match(accountId, { statuses: [status(text)] })).results['109000000000000001']!.map((r) => r.filter.title);

describe('compiled matchers per account', () => {
  it("compiles an account's filters once while its version stays the same", async () => {
    const source = new CountingSource();
    source.set('1', [filter({ title: 'a', words: ['apple'] })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    assert.deepEqual(await titles(matchers, '1', 'apple'), ['a']);
    assert.deepEqual(await titles(matchers, '1', 'apple pie'), ['a']);
    assert.equal(source.lists, 1);
  });

  it('recompiles as soon as the version changes', async () => {
    const source = new CountingSource();
    source.set('1', [filter({ title: 'a', words: ['apple'] })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    assert.deepEqual(await titles(matchers, '1', 'apple banana'), ['a']);
    source.set('1', [filter({ title: 'b', words: ['banana'] })]);
    assert.deepEqual(await titles(matchers, '1', 'apple banana'), ['b']);
    assert.equal(source.lists, 2);
  });

  it('keeps accounts apart', async () => {
    const source = new CountingSource();
    source.set('1', [filter({ title: 'ones', words: ['secret'] })]);
    source.set('2', []);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    assert.deepEqual(await titles(matchers, '1', 'secret'), ['ones']);
    assert.deepEqual(await titles(matchers, '2', 'secret'), []);
    assert.deepEqual(await titles(matchers, '3', 'secret'), [], 'an account without filters');
  });

  it('compiles once for concurrent requests of one account', async () => {
    const source = new CountingSource();
    source.set('1', [filter({ words: ['x'] })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    await Promise.all(Array.from({ length: 5 }, () => matchers.matcherFor('1')));
    assert.equal(source.lists, 1);
  });

  it('drops the least recently used matchers when full, and compiles them again when asked', async () => {
    const source = new CountingSource();
    for (const id of ['1', '2', '3']) source.set(id, [filter({ title: id, words: [`word${id}`] })]);
    const one = (await new AccountMatchers(source).matcherFor('1')).size;
    const matchers = new AccountMatchers(source, { maxSize: one * 2, maxEntrySize: one, now: () => NOW });
    await matchers.matcherFor('1');
    await matchers.matcherFor('2');
    await matchers.matcherFor('1');
    await matchers.matcherFor('3');
    assert.equal(matchers.cachedAccounts, 2);
    const before = source.lists;
    await matchers.matcherFor('1');
    assert.equal(source.lists, before, '1 was used last, so 2 went');
    assert.deepEqual(await titles(matchers, '2', 'word2'), ['2']);
    assert.equal(source.lists, before + 1);
  });

  it('answers every requested status, [] when no filter applies', async () => {
    const source = new CountingSource();
    source.set('1', [filter({ title: 'a', words: ['apple'] })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    const response = await matchers.match('1', { statuses: [status('apple', { id: '10' }), status('pear', { id: '11' })] });
    assert.deepEqual(Object.keys(response.results), ['10', '11']);
    assert.equal(response.results['10']!.length, 1);
    assert.deepEqual(response.results['11'], []);
  });

  it("does not let one account's large matcher push out the other accounts' matchers", async () => {
    const source = new CountingSource();
    for (const id of ['1', '2', '3']) source.set(id, [filter({ title: id, words: [`word${id}`] })]);
    source.set('big', [filter({ title: 'big', words: Array.from({ length: 500 }, (_, k) => `long keyword number ${k}`) })]);
    const one = (await new AccountMatchers(source).matcherFor('1')).size;
    const matchers = new AccountMatchers(source, { maxSize: one * 8, maxEntrySize: one * 2, now: () => NOW });
    for (const id of ['1', '2', '3']) await matchers.matcherFor(id);
    assert.deepEqual(await titles(matchers, 'big', 'long keyword number 7'), ['big'], 'the large matcher still answers');
    assert.equal(matchers.cachedAccounts, 3);
    const before = source.lists;
    for (const id of ['1', '2', '3']) assert.deepEqual(await titles(matchers, id, `word${id}`), [id]);
    assert.equal(source.lists, before, 'the small matchers stayed cached');
  });

  it('serves another request while a large matcher compiles', async () => {
    const source = new CountingSource();
    source.set('small', [filter({ title: 'small', words: ['apple'] })]);
    source.set('big', [filter({ title: 'big', words: Array.from({ length: 20_000 }, (_, k) => `keyword ${k} of a large filter`) })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    await matchers.matcherFor('small');
    const order: string[] = [];
    const big = matchers.match('big', { statuses: [status('keyword 7 of a large filter')] }).then(() => order.push('big'));
    // Asked for from the next turn of the event loop: a compile that never yields would finish first.
    const small = new Promise((resolve) => setImmediate(resolve)).then(() => titles(matchers, 'small', 'apple')).then(() => order.push('small'));
    await Promise.all([big, small]);
    assert.deepEqual(order, ['small', 'big']);
  });

  it('serves another request while matching a large batch of statuses', async () => {
    const source = new CountingSource();
    source.set('small', [filter({ title: 'small', words: ['apple'] })]);
    source.set('busy', [filter({ title: 'busy', words: ['pear', 'plum'] })]);
    const matchers = new AccountMatchers(source, { now: () => NOW });
    await matchers.matcherFor('small');
    await matchers.matcherFor('busy');
    const statuses = Array.from({ length: 200 }, (_, k) => status(`<p>${'word '.repeat(1000)}</p>`, { id: String(1000 + k) }));
    const order: string[] = [];
    const busy = matchers.match('busy', { statuses }).then(() => order.push('busy'));
    const small = new Promise((resolve) => setImmediate(resolve)).then(() => titles(matchers, 'small', 'apple')).then(() => order.push('small'));
    await Promise.all([busy, small]);
    assert.deepEqual(order, ['small', 'busy']);
  });
});
