import assert from 'node:assert/strict';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import type { ContractSubject } from './contract-subject.ts';

const view = (accountId: string, deleted = false): FilterView => ({
  id: newId(),
  accountId,
  title: 't',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: [],
  statuses: [],
  revision: 0,
  deleted,
});

/** Every adapter pages through the accounts it holds the same way: what a check of every account walks. */
export function accountsAfterContract(given: ContractSubject<ReadStore>): void {
  it('pages through every account holding a filter, tombstones too, in ascending order, each once', async () => {
    // Digit strings of one length sort as numbers; a prefix above every id already stored keeps this test's own.
    const prefix = `9${Date.now()}${Math.floor(Math.random() * 1e6)}`.padEnd(19, '0');
    const accounts = ['10', '11', '12', '20', '21'].map((suffix) => `${prefix.slice(0, 17)}${suffix}`);
    const views = [...accounts.map((a) => view(a)), view(accounts[0]!), view(accounts[0]!), view(accounts[3]!, true)];
    await given.store.applyBatch({ projection: `p-${newId()}`, position: 1n, views });
    const seen: string[] = [];
    for (let after: string | null = `${prefix.slice(0, 17)}0`; ;) {
      const page = await given.store.accountsAfter(after, 2);
      if (page.length === 0) break;
      assert.ok(page.length <= 2);
      seen.push(...page);
      after = page.at(-1)!;
    }
    assert.deepEqual(
      seen.filter((a) => a.startsWith(prefix.slice(0, 17))),
      accounts,
    );
    assert.deepEqual(await given.store.accountsAfter(accounts.at(-1)!, 10), [], 'nothing after the last of them');
  });
}
