import assert from 'node:assert/strict';
import { keywordCharacters } from '../../src/commands/filter/filter-limits.ts';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import type { ContractSubject } from './contract-subject.ts';

const keyword = (text: string) => ({ id: newId(), keyword: text, wholeWord: false });

function filterOf(accountId: string, keywords: readonly string[], revision = 0): FilterView {
  return {
    id: newId(),
    accountId,
    title: 't',
    context: ['home'],
    filterAction: 'warn',
    expiresAt: null,
    keywords: keywords.map(keyword),
    statuses: [],
    revision,
    deleted: false,
  };
}

// Code points, not UTF-16 units nor UTF-8 bytes: an astral emoji is 1 (2 units, 4 bytes), "e" with a
// combining accent is 2 (2 units, 3 bytes), a precomposed "é" is 1 (1 unit, 2 bytes).
const ASTRAL = '\u{1F600}\u{1F431}x'; // 3
const COMBINING = 'cafe\u0301'; // 5
const PRECOMPOSED = 'caf\u00e9'; // 4

/** The per-account usage query of the ReadStore contract; `given.store` is the adapter under test. */
export function accountUsageContract(given: ContractSubject<ReadStore>): void {
  const at = (position: bigint) => ({ projection: `p-${newId()}`, position });

  it('sums the account’s live filters and their keyword code points, leaving out the filter asked about', async () => {
    const accountId = newId();
    const a = filterOf(accountId, [ASTRAL, COMBINING]);
    const b = filterOf(accountId, [PRECOMPOSED, 'ab']);
    const stranger = filterOf(newId(), ['zzzzzzzz']);
    await given.store.applyBatch({ ...at(1n), views: [a, b, stranger] });
    assert.equal(keywordCharacters(a.keywords), 8);
    assert.deepEqual(await given.store.accountUsage(accountId, newId()), { filters: 2, keywordCharacters: 14 });
    assert.deepEqual(await given.store.accountUsage(accountId, a.id), { filters: 1, keywordCharacters: 6 });
    assert.deepEqual(await given.store.accountUsage(accountId, b.id), { filters: 1, keywordCharacters: keywordCharacters(a.keywords) });
    assert.deepEqual(await given.store.accountUsage(newId(), a.id), { filters: 0, keywordCharacters: 0 });
    assert.deepEqual(await given.store.accountUsage('not an id', a.id), { filters: 0, keywordCharacters: 0 });
  });

  it('follows keyword changes and deletions, whether a view is written whole or as a change', async () => {
    const accountId = newId();
    const first = filterOf(accountId, ['one']);
    const other = filterOf(accountId, []);
    await given.store.applyBatch({ ...at(1n), views: [first, other] });
    assert.deepEqual(await given.store.accountUsage(accountId, other.id), { filters: 1, keywordCharacters: 3 });

    const grown = { ...first, keywords: [...first.keywords, keyword(ASTRAL)], revision: 1 };
    await given.store.applyBatch({ ...at(2n), views: [grown], previous: new Map([[first.id, first]]) });
    assert.deepEqual(await given.store.accountUsage(accountId, other.id), { filters: 1, keywordCharacters: 6 });

    const shrunk = { ...grown, keywords: [keyword(COMBINING)], revision: 2 };
    await given.store.saveFilter(shrunk, at(3n));
    assert.deepEqual(await given.store.accountUsage(accountId, other.id), { filters: 1, keywordCharacters: 5 });

    await given.store.saveFilter({ ...shrunk, revision: 1, keywords: [keyword('stale and long')] }, at(4n));
    assert.deepEqual(await given.store.accountUsage(accountId, other.id), { filters: 1, keywordCharacters: 5 });

    await given.store.saveFilter({ ...shrunk, revision: 3, deleted: true }, at(5n));
    assert.deepEqual(await given.store.accountUsage(accountId, other.id), { filters: 0, keywordCharacters: 0 });
    assert.deepEqual(await given.store.accountUsage(accountId, newId()), { filters: 1, keywordCharacters: 0 });
  });
}
