import assert from 'node:assert/strict';
import { evolve, initialState, type FilterState } from '../../src/commands/filter/filter-state.ts';
import type { FilterEvent } from '../../src/events/filter-events.ts';

// The command side's fold on its own: a stream can hold events that do not fit the phase (a replayed
// or out-of-place event), and the fold must keep the state it has rather than invent one.
const now = '2026-11-22T10:00:00.000Z';
const filterId = '1001';
const owner = '7';

const created = (title = 't'): FilterEvent => ({
  type: 'FilterCreated',
  data: { filterId, accountId: owner, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
});
const updated: FilterEvent = { type: 'FilterUpdated', data: { filterId, title: 'u', context: ['public'], action: 'hide', expiresAt: null, updatedAt: now } };
const keywords: FilterEvent = {
  type: 'KeywordsUpdated',
  data: { filterId, removed: [], changed: [], added: [{ id: '2001', keyword: 'k', wholeWord: true }], replacesAll: false, updatedAt: now },
};
const filtered = (filterStatusId: string, statusId: string): FilterEvent => ({
  type: 'StatusFiltered',
  data: { filterId, filterStatusId, statusId, filteredAt: now },
});
const unfiltered = (filterStatusId: string, statusId: string): FilterEvent => ({
  type: 'StatusUnfiltered',
  data: { filterId, filterStatusId, statusId, unfilteredAt: now },
});
const deleted: FilterEvent = { type: 'FilterDeleted', data: { filterId, deletedAt: now } };

const fold = (events: readonly FilterEvent[]): FilterState => events.reduce(evolve, initialState());

describe('Filter state (the command-side fold)', () => {
  it('keeps statuses other than the one unfiltered, in order', () => {
    const state = fold([created(), filtered('5', '9'), filtered('6', '10'), filtered('7', '11'), unfiltered('6', '10')]);
    assert.deepEqual(state.phase === 'active' && state.statuses, [
      { id: '5', statusId: '9' },
      { id: '7', statusId: '11' },
    ]);
  });

  it('does not let a second FilterCreated reset an existing filter', () => {
    const state = fold([created('first'), keywords, filtered('5', '9'), created('second')]);
    assert.equal(state.phase === 'active' && state.settings.title, 'first');
    assert.deepEqual(state.phase === 'active' && state.keywords.map((k) => k.id), ['2001']);
    assert.deepEqual(state.phase === 'active' && state.statuses, [{ id: '5', statusId: '9' }]);
  });

  it('ignores every change to a filter that does not exist', () => {
    for (const event of [updated, keywords, filtered('5', '9'), unfiltered('5', '9'), deleted]) {
      assert.deepEqual(fold([event]), { phase: 'none' }, event.type);
    }
  });

  it('ignores every change after the filter was deleted, and cannot bring it back', () => {
    const gone = { phase: 'deleted', filterId, accountId: owner };
    assert.deepEqual(fold([created(), deleted]), gone);
    for (const event of [updated, keywords, filtered('5', '9'), unfiltered('5', '9'), deleted, created()]) {
      assert.deepEqual(fold([created(), deleted, event]), gone, event.type);
    }
  });
});
