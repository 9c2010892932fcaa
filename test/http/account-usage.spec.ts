import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { ValidationError } from '../../src/commands/errors.ts';
import { FILTER_LIMITS, keywordCharacters } from '../../src/commands/filter/filter-limits.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import type { FilterView } from '../../src/projections/fold/filter-view.ts';
import { runFilterCommand, type Caller } from '../../src/http/run-filter-command.ts';
import { newId } from '../../src/shared/ids.ts';
import { KeyedLock } from '../../src/shared/keyed-lock.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const accountId = '77';
const caller: Caller = { accountId, tokenId: null, requestId: 'r', apiVersion: 'v2' };
const view = (id: string, keyword: string): FilterView => ({
  id,
  accountId,
  title: 't',
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: keyword ? [{ id: newId(), keyword, wholeWord: true }] : [],
  statuses: [],
  revision: 1,
  deleted: false,
});

/**
 * Read models exactly as far as the log: the filters created before plus the account's FilterCreated
 * events appended so far. Commands judged against them at once, before any of them appended, see
 * none of each other.
 */
function readModelsOfLog(events: SqliteEventStore, existing: number) {
  const before: FilterView[] = Array.from({ length: existing }, () => view(newId(), ''));
  const listFilters = async () => {
    const log = await events.readAll({ after: null, limit: 10_000 });
    return [...before, ...log.filter((e) => e.type === 'FilterCreated').map((e) => view((e.data as { filterId: string }).filterId, ''))];
  };
  return {
    listFilters,
    accountUsage: async (_account: string, exceptFilterId: string) => {
      const others = (await listFilters()).filter((f) => f.id !== exceptFilterId);
      return { filters: others.length, keywordCharacters: keywordCharacters(others.flatMap((f) => f.keywords)) };
    },
  };
}

describe('Per-account limits across concurrent commands (runFilterCommand)', () => {
  const create = async (deps: Parameters<typeof runFilterCommand>[0]): Promise<string> => {
    const settings = { title: 't', context: ['home'], action: 'warn', expiresAt: null };
    try {
      await runFilterCommand(deps, caller, {
        type: 'CreateFilter',
        data: { filterId: newId(), accountId, now: new Date().toISOString(), settings, keywords: [] },
      });
      return 'created';
    } catch (error) {
      if (error instanceof ValidationError) return error.message;
      throw error;
    }
  };

  it('judges one account’s creates one after another, so none passes the filter limit', async () => {
    const events = SqliteEventStore.inDataDir(scratchDir());
    try {
      const reads = readModelsOfLog(events, FILTER_LIMITS.filtersPerAccount - 3);
      const deps = { events, catchUp: { waitFor: async () => true }, logger: silentLogger, reads, accountWrites: new KeyedLock() };
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => create(deps)));
      assert.equal(outcomes.filter((o) => o === 'created').length, 3);
      assert.deepEqual(
        outcomes.filter((o) => o !== 'created'),
        Array.from({ length: 5 }, () => `Validation failed: Filters are too many (maximum is ${FILTER_LIMITS.filtersPerAccount} per account)`),
      );
      assert.equal((await reads.listFilters()).length, FILTER_LIMITS.filtersPerAccount);
      assert.equal(deps.accountWrites.size, 0);
    } finally {
      await events.close();
    }
  });

  it('runs tasks of one key in turn and of different keys side by side', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(`${name} starts`);
      await turn();
      order.push(`${name} ends`);
      if (name === 'a1') throw new Error('a1 fails');
      return name;
    };
    const results = await Promise.allSettled([lock.run('a', task('a1')), lock.run('a', task('a2')), lock.run('b', task('b1'))]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    // b1 need not wait for a1; a2 waits for a1 even though a1 failed.
    assert.ok(order.indexOf('b1 starts') < order.indexOf('a1 ends'), order.join(', '));
    assert.ok(order.indexOf('a2 starts') > order.indexOf('a1 ends'), order.join(', '));
    await turn();
    assert.equal(lock.size, 0);
  });
});
