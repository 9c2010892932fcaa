import assert from 'node:assert/strict';
import { v1RecordsOf, type FilterView } from '../../src/projections/fold/filter-view.ts';
import { accountDrift, type AccountModels } from '../../src/projections/admin/read-model-diff.ts';

const view = (overrides: Partial<FilterView> = {}): FilterView => ({
  id: '20',
  accountId: '1',
  title: 'spoilers',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [
    { id: '31', keyword: 'finale', wholeWord: true },
    { id: '32', keyword: 'ending', wholeWord: false },
  ],
  statuses: [{ id: '41', statusId: '109' }],
  revision: 3,
  deleted: false,
  ...overrides,
});

const models = (...views: FilterView[]): AccountModels => ({ views, v1: views.flatMap(v1RecordsOf) });

describe('Read-model drift of one account (pure)', () => {
  it('finds none when both sides hold the same rows', () => {
    assert.deepEqual(accountDrift('1', models(view()), models(view())), []);
  });

  it('names a v2 field and the v1 records that carry it', () => {
    const live = models(view({ filterAction: 'hide' }));
    assert.deepEqual(accountDrift('1', live, models(view())), [
      { account: '1', filter: '20', model: 'v2', field: 'filterAction', live: 'hide', log: 'warn' },
      { account: '1', filter: '20', model: 'v1', keyword: '31', field: 'irreversible', live: true, log: false },
      { account: '1', filter: '20', model: 'v1', keyword: '32', field: 'irreversible', live: true, log: false },
    ]);
  });

  it('names a changed v1 record alone when the v2 view is right', () => {
    const live = models(view());
    const v1 = live.v1.map((record) => (record.id === '32' ? { ...record, phrase: 'tampered' } : record));
    assert.deepEqual(accountDrift('1', { ...live, v1 }, models(view())), [
      { account: '1', filter: '20', model: 'v1', keyword: '32', field: 'phrase', live: 'tampered', log: 'ending' },
    ]);
  });

  it('names keywords and statuses by id: changed, missing, extra, and their order', () => {
    const [finale, ending] = view().keywords;
    const changed = view({ keywords: [{ ...finale!, wholeWord: false }, ending!] });
    assert.deepEqual(
      accountDrift('1', { views: [changed], v1: [] }, { views: [view()], v1: [] }).map((d) => [d.field, d.live, d.log]),
      [['keywords[31].wholeWord', false, true]],
    );
    const reordered = view({ keywords: [ending!, finale!], statuses: [] });
    assert.deepEqual(
      accountDrift('1', { views: [reordered], v1: [] }, { views: [view()], v1: [] }).map((d) => [d.field, d.live, d.log]),
      [
        ['keywords (order)', ['32', '31'], ['31', '32']],
        ['statuses[41]', null, { id: '41', statusId: '109' }],
      ],
    );
  });

  it('names a row one side lacks, v2 and v1 alike, and a revision that differs', () => {
    const other = view({ id: '21', keywords: [{ id: '33', keyword: 'x', wholeWord: true }] });
    const found = accountDrift('1', models(view({ revision: 4 })), models(view(), other));
    assert.deepEqual(
      found.map((d) => [d.filter, d.model, d.keyword, d.field, d.live, d.log]),
      [
        ['20', 'v2', undefined, 'revision', 4, 3],
        ['21', 'v2', undefined, 'exists', false, true],
        ['21', 'v1', '33', 'exists', false, true],
      ],
    );
  });
});
