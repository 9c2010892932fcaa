import assert from 'node:assert/strict';
import { filterDecider } from '../../src/commands/filter/decider.ts';
import type { FilterCommand, KeywordDraft } from '../../src/commands/filter/commands.ts';
import type { FilterState } from '../../src/commands/filter/filter-state.ts';
import { readFilterEvent, type StoredEvent } from '../../src/events/filter-event-versions.ts';
import { keywordsAfter, type FilterEvent, type Keyword } from '../../src/events/filter-events.ts';
import { projectFilter, v1RecordsOf, type FilterView } from '../../src/projections/fold/filter-view.ts';
import { filtersAsOf } from '../../src/projections/admin/filters-as-of.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { specFor } from '../support/given.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const now = '2026-11-26T06:00:00.000Z';
const filterId = '1001';
const owner = '7';

const read = (stored: StoredEvent): FilterEvent => {
  const event = readFilterEvent(stored);
  assert.ok(event, `unreadable: ${JSON.stringify(stored)}`);
  return event;
};
const createdV1: StoredEvent = {
  type: 'FilterCreated',
  data: { filterId, accountId: owner, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
  metadata: { schemaVersion: 1 },
};
/** KeywordsUpdated as releases before keyword deltas wrote it: the whole list after the change. */
const wholeList = (keywords: readonly Keyword[], metadata: unknown = { schemaVersion: 1 }): StoredEvent => ({
  type: 'KeywordsUpdated',
  data: { filterId, keywords, updatedAt: now },
  metadata,
});
const update = (data: Partial<Extract<FilterCommand, { type: 'UpdateFilter' }>['data']>): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId: owner, now, ...data },
});

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('KeywordsUpdated carries the change; whole-list events of older logs are upcast', () => {
  const given = specFor(filterDecider);
  const oldLog = [
    read(createdV1),
    read(
      wholeList([
        { id: '1', keyword: 'magic', wholeWord: true },
        { id: '2', keyword: 'tv', wholeWord: false },
      ]),
    ),
  ];

  it('reads a version-1 whole list as a change that replaces every keyword', () => {
    const keywords = [{ id: '1', keyword: 'magic', wholeWord: true }];
    const expected = { type: 'KeywordsUpdated', data: { filterId, removed: [], changed: [], added: keywords, replacesAll: true, updatedAt: now } };
    assert.deepEqual(readFilterEvent(wholeList(keywords)), expected);
    // Events from before versions were recorded at all are version 1 too.
    assert.deepEqual(readFilterEvent(wholeList(keywords, null)), expected);
    assert.deepEqual(readFilterEvent({ type: 'KeywordsUpdated', data: { filterId, updatedAt: now }, metadata: {} }), {
      ...expected,
      data: { ...expected.data, added: [] },
    });
  });

  it('given an old whole-list log, when a keyword is changed, then only that change is written', () =>
    given(oldLog)
      .when(update({ changeKeywords: [{ id: '2', keyword: 'radio' }] }))
      .then([
        {
          type: 'KeywordsUpdated',
          data: { filterId, removed: [], changed: [{ id: '2', keyword: 'radio', wholeWord: false }], added: [], replacesAll: false, updatedAt: now },
        },
      ]));

  it('given an old whole-list log, when a keyword is removed, then the decider still knows the others', () => {
    given(oldLog)
      .when(update({ removeKeywords: ['1'] }))
      .then([{ type: 'KeywordsUpdated', data: { filterId, removed: ['1'], changed: [], added: [], replacesAll: false, updatedAt: now } }]);
    given([...oldLog, read(wholeList([]))])
      .when(update({ removeKeywords: ['1'] }))
      .thenThrows(Error, 'Record not found');
  });

  it('folds a stored change whose lists are missing or not lists as no change, never throwing', () => {
    const kept = [{ id: '1', keyword: 'magic', wholeWord: true }];
    assert.deepEqual(keywordsAfter(kept, { filterId, updatedAt: now } as never), kept);
    assert.deepEqual(keywordsAfter(kept, { filterId, removed: 'x', changed: 7, added: null, replacesAll: false, updatedAt: now } as never), kept);
  });

  it('folds, projects and lists v1 records alike from whole lists and from deltas (random edits)', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const next = random(seed);
      let state: FilterState = filterDecider.evolve(filterDecider.initialState(), read(createdV1));
      let legacyState: FilterState = state;
      let view: FilterView | null = projectFilter(null, read(createdV1), 0);
      let legacyView: FilterView | null = view;
      let counter = 0;
      const newKeyword = (): KeywordDraft => ({ id: String(seed * 1000 + (counter += 1)), keyword: `w${Math.floor(next() * 5)}`, wholeWord: next() < 0.5 });
      for (let step = 1; step <= 30; step += 1) {
        const current = state.phase === 'active' ? state.keywords : [];
        const pick = () => current.filter(() => next() < 0.3).map((k) => k.id);
        const command = update({
          addKeywords: Array.from({ length: Math.floor(next() * 3) }, newKeyword),
          changeKeywords: pick().map((id) => ({
            id,
            ...(next() < 0.5 ? { keyword: `c${Math.floor(next() * 5)}` } : {}),
            ...(next() < 0.5 ? { wholeWord: next() < 0.5 } : {}),
          })),
          removeKeywords: pick(),
        });
        const events = filterDecider.decide(command, state);
        for (const event of events) {
          // What an older release would have stored for the same change: the whole list after it.
          const after = filterDecider.evolve(state, event);
          const legacy = read(wholeList(after.phase === 'active' ? after.keywords : []));
          state = after;
          legacyState = filterDecider.evolve(legacyState, legacy);
          view = projectFilter(view, event, step);
          legacyView = projectFilter(legacyView, legacy, step);
        }
        assert.deepEqual(state, legacyState, `seed ${seed} step ${step}: command state`);
        assert.deepEqual(view, legacyView, `seed ${seed} step ${step}: v2 view`);
        assert.deepEqual(v1RecordsOf(view!), v1RecordsOf(legacyView!), `seed ${seed} step ${step}: v1 records`);
        assert.deepEqual(view!.keywords, state.phase === 'active' ? state.keywords : null, `seed ${seed} step ${step}: view and state agree`);
      }
    }
  });

  it('time travel (filters --as-of) reads a log that holds whole lists before deltas', async () => {
    const events = SqliteEventStore.inDataDir(scratchDir());
    try {
      const delta = (data: object): StoredEvent => ({
        type: 'KeywordsUpdated',
        data: { filterId, removed: [], changed: [], added: [], replacesAll: false, updatedAt: now, ...data },
        metadata: { accountId: owner, schemaVersion: 2 },
      });
      const magic = { id: '1', keyword: 'magic', wholeWord: true };
      await events.appendToStream(filterStream(filterId), [createdV1, wholeList([magic, { id: '2', keyword: 'tv', wholeWord: false }])], 'no_stream');
      const { position: beforeDeltas } = await events.appendToStream(filterStream(filterId), [delta({ removed: ['2'] })], 1n);
      await events.appendToStream(
        filterStream(filterId),
        [delta({ changed: [{ ...magic, keyword: 'wand' }], added: [{ id: '3', keyword: 'new', wholeWord: true }] })],
        2n,
      );
      const keywordsAt = async (position: bigint | null) =>
        (await filtersAsOf(events, owner, position === null ? { position: 2n ** 62n } : { position }))[0]!.keywords.map((k) => k.keyword);
      assert.deepEqual(await keywordsAt(2n), ['magic', 'tv']);
      assert.deepEqual(await keywordsAt(beforeDeltas), ['magic']);
      assert.deepEqual(await keywordsAt(null), ['wand', 'new']);
    } finally {
      await events.close();
    }
  });
});
