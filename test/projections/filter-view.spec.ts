import assert from 'node:assert/strict';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { projectFilter, v1RecordsOf, type FilterView } from '../../src/projections/fold/filter-view.ts';

const now = '2026-11-22T10:00:00.000Z';
const filterId = '100';
const history: FilterEvent[] = [
  { type: 'FilterCreated', data: { filterId, accountId: '7', title: 't', context: ['home'], action: 'hide', expiresAt: null, createdAt: now } },
  {
    type: 'KeywordsUpdated',
    data: { filterId, removed: [], changed: [], added: [{ id: '200', keyword: 'magic', wholeWord: false }], replacesAll: false, updatedAt: now },
  },
  { type: 'StatusFiltered', data: { filterId, filterStatusId: '300', statusId: '9', filteredAt: now } },
  { type: 'FilterUpdated', data: { filterId, title: 'u', context: ['public'], action: 'warn', expiresAt: now, updatedAt: now } },
];

const fold = (events: readonly FilterEvent[], start: FilterView | null = null, from = 0) =>
  events.reduce<FilterView | null>((view, event, i) => projectFilter(view, event, from + i), start);

describe('Filter view projection', () => {
  it("folds a filter's events into its v2 document", () => {
    assert.deepEqual(fold(history), {
      id: filterId,
      accountId: '7',
      title: 'u',
      context: ['public'],
      filterAction: 'warn',
      expiresAt: now,
      keywords: [{ id: '200', keyword: 'magic', wholeWord: false }],
      statuses: [{ id: '300', statusId: '9' }],
      revision: 3,
      deleted: false,
    });
  });

  it('changes nothing when the same events are applied twice', () => {
    const once = fold(history);
    assert.deepEqual(fold(history, once), once);
  });

  it('keeps a deleted filter as a tombstone that a replay cannot revive', () => {
    const deleted = fold([...history, { type: 'FilterDeleted', data: { filterId, deletedAt: now } }]);
    assert.equal(deleted?.deleted, true);
    assert.deepEqual(fold(history, deleted), deleted);
    assert.deepEqual(v1RecordsOf(deleted), []);
  });

  it('ignores an event type it does not know', () => {
    const future = { type: 'FilterRenamedInTheFuture', data: { filterId, title: 'renamed' } } as unknown as FilterEvent;
    const known = fold(history);
    assert.deepEqual(projectFilter(known, future, 4), known);
    assert.equal(projectFilter(null, future, 0), null);
    assert.deepEqual(fold([history[0]!, future, ...history.slice(1)]), { ...known, revision: 4 });
  });

  it('ignores events for a filter it never saw created', () => {
    assert.equal(fold(history.slice(1)), null);
  });

  it('removes an unfiltered status', () => {
    const view = fold([...history, { type: 'StatusUnfiltered', data: { filterId, filterStatusId: '300', statusId: '9', unfilteredAt: now } }]);
    assert.deepEqual(view?.statuses, []);
  });

  it('derives v1 records with irreversible true exactly for hide', () => {
    const hidden = fold(history.slice(0, 2))!;
    assert.deepEqual(v1RecordsOf(hidden), [
      { id: '200', accountId: '7', filterId, phrase: 'magic', context: ['home'], wholeWord: false, expiresAt: null, irreversible: true },
    ]);
    assert.equal(v1RecordsOf(fold(history)!)[0]?.irreversible, false);
  });

  it('skips an event at a revision it has already folded, even one that differs (a duplicate delivery)', () => {
    const view = fold(history)!;
    const other: FilterEvent = {
      type: 'FilterUpdated',
      data: { filterId, title: 'other', context: ['home'], action: 'hide', expiresAt: null, updatedAt: now },
    };
    assert.equal(projectFilter(view, other, view.revision), view);
    assert.equal(projectFilter(view, other, view.revision + 1)?.title, 'other');
  });

  it('keeps what it has when a FilterCreated comes again, and moves its revision', () => {
    const view = fold(history)!;
    assert.deepEqual(projectFilter(view, { ...history[0]!, data: { ...history[0]!.data, title: 'again' } } as FilterEvent, 4), { ...view, revision: 4 });
  });

  it('records a filtered status once, even when the event comes again at a later revision', () => {
    const view = fold(history)!;
    assert.deepEqual(projectFilter(view, history[2]!, 4)?.statuses, [{ id: '300', statusId: '9' }]);
    const second: FilterEvent = { type: 'StatusFiltered', data: { filterId, filterStatusId: '301', statusId: '10', filteredAt: now } };
    assert.deepEqual(projectFilter(view, second, 4)?.statuses, [
      { id: '300', statusId: '9' },
      { id: '301', statusId: '10' },
    ]);
  });

  it('removes only the unfiltered status', () => {
    const second: FilterEvent = { type: 'StatusFiltered', data: { filterId, filterStatusId: '301', statusId: '10', filteredAt: now } };
    const removed: FilterEvent = { type: 'StatusUnfiltered', data: { filterId, filterStatusId: '300', statusId: '9', unfilteredAt: now } };
    assert.deepEqual(fold([...history, second, removed])?.statuses, [{ id: '301', statusId: '10' }]);
  });

  it('empties the keywords and statuses of a deleted filter', () => {
    const deleted = fold([...history, { type: 'FilterDeleted', data: { filterId, deletedAt: now } }]);
    assert.deepEqual([deleted?.keywords, deleted?.statuses], [[], []]);
  });

  it('derives no v1 record from a view marked deleted, whatever keywords it still lists', () => {
    // The rule is the deleted flag itself, not the keywords that deleting happens to empty.
    const view = fold(history)!;
    assert.deepEqual(v1RecordsOf({ ...view, deleted: true }), []);
  });
});
