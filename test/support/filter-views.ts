import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import { newId } from '../../src/shared/ids.ts';

/** A stored filter of `accountId` with a fresh id: one "magic" keyword, home context, revision 0, unless overridden. */
export const filterView = (accountId: string, overrides: Partial<FilterView> = {}): FilterView => ({
  id: newId(),
  accountId,
  title: 'magic',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [{ id: newId(), keyword: 'magic', wholeWord: true }],
  statuses: [],
  revision: 0,
  deleted: false,
  ...overrides,
});
