import assert from 'node:assert/strict';
import { AccountUsageLedger, filterUsage } from '../../src/commands/filter/account-usage-ledger.ts';
import { evolve, initialState } from '../../src/commands/filter/filter-state.ts';
import { usageStream, type UsageTotals } from '../../src/events/account-usage-events.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import type { EventStore, NewEvent } from '../../src/events/event-store.ts';
import { readFilterEvent } from '../../src/events/filter-event-versions.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runFilterCommand, type FilterCommandDeps } from '../../src/http/run-filter-command.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const settings = { title: 't', context: ['home'], action: 'warn', expiresAt: null };
const caller = (accountId: string) => ({ accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' as const });
const apiProcess = (events: EventStore): FilterCommandDeps => ({
  events,
  catchUp: { waitFor: async () => true },
  logger: silentLogger,
});

async function create(deps: FilterCommandDeps, accountId: string, created: string[]): Promise<void> {
  const filterId = newId();
  const keywords = [{ id: newId(), keyword: 'kw', wholeWord: false }];
  await runFilterCommand(deps, caller(accountId), { type: 'CreateFilter', data: { filterId, accountId, now: new Date().toISOString(), settings, keywords } });
  created.push(filterId);
}

async function remove(deps: FilterCommandDeps, accountId: string, live: string[]): Promise<void> {
  const filterId = live.shift()!;
  await runFilterCommand(deps, caller(accountId), { type: 'DeleteFilter', data: { filterId, accountId, now: new Date().toISOString() } });
}

/** What the filter streams hold, folded: the truth the ledger must settle to. */
async function logTotals(events: EventStore, filterIds: readonly string[]): Promise<UsageTotals> {
  let totals = { filters: 0, keywordCharacters: 0 };
  for (const id of filterIds) {
    const usage = filterUsage((await events.readStream(filterStream(id))).reduce((s, r) => evolve(s, readFilterEvent(r)!), initialState()));
    totals = { filters: totals.filters + usage.filters, keywordCharacters: totals.keywordCharacters + usage.keywordCharacters };
  }
  return totals;
}

const ledgerTotals = async (events: EventStore, accountId: string) => (await new AccountUsageLedger(events).read({ accountId, requestId: 'test' })).totals;

/**
 * The seam: a connection whose ledger appends recording a shrink are each preceded, while `steal` says
 * so, by `competitor` (another process's write to the same ledger), so every try of the shrink loses.
 */
function shrinkLoses(store: EventStore, steal: () => boolean, competitor: () => Promise<void>): EventStore {
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'appendToStream') {
        return async (name: string, events: readonly NewEvent[], expected: Parameters<EventStore['appendToStream']>[2]) => {
          const recording = name.startsWith(usageStream('')) && (events[0]?.data as { reason?: string }).reason === 'recorded';
          if (recording && steal()) await competitor();
          return target.appendToStream(name, events, expected);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function settleSuite(name: string, connect: () => EventStore[]): void {
  describe(`The usage ledger settles every shrink, however its races go: ${name}`, function () {
    this.timeout(120_000);
    let connections: EventStore[] = [];
    beforeEach(() => {
      connections = connect();
    });
    afterEach(async () => {
      await Promise.all(connections.map((c) => c.close()));
    });

    it('carries a shrink that lost every try to the next settle, so a starved delete cannot leave the account counted high', async () => {
      const accountId = newId();
      const live: string[] = [];
      const other = apiProcess(connections[1]!);
      let stealing = true;
      let stolen = 0;
      const one = apiProcess(
        shrinkLoses(
          connections[0]!,
          () => stealing,
          async () => {
            stolen += 1;
            await create(other, accountId, live);
          },
        ),
      );
      // Given an account of three filters, whose ledger another process writes before each try of a delete's shrink
      for (let i = 0; i < 3; i += 1) await create(one, accountId, live);
      // When that delete is answered (its filter is gone) but its shrink never landed
      await remove(one, accountId, live);
      assert.ok(stolen >= 8, `the competitor won ${stolen} rounds`);
      assert.deepEqual(await ledgerTotals(connections[1]!, accountId), { filters: live.length + 1, keywordCharacters: 2 * (live.length + 1) });
      // Then the next delete of this process lands both
      stealing = false;
      await remove(one, accountId, live);
      assert.deepEqual(await ledgerTotals(connections[1]!, accountId), await logTotals(connections[1]!, live));
    });

    it('lets the deletes of one process settle in turns, never against each other, carrying what is owed exactly once', async () => {
      const accountId = newId();
      const live: string[] = [];
      const other = apiProcess(connections[1]!);
      let stealing = true;
      const one = apiProcess(
        shrinkLoses(
          connections[0]!,
          () => stealing,
          () => create(other, accountId, live),
        ),
      );
      for (let i = 0; i < 20; i += 1) await create(one, accountId, live);
      await remove(one, accountId, live);
      stealing = false;
      // Given a shrink owed, when 16 deletes run at once in the process that owes it
      await Promise.all(Array.from({ length: 16 }, () => remove(one, accountId, live)));
      // Then it is carried by one of them only: the ledger is the log, neither high nor low
      assert.deepEqual(await ledgerTotals(connections[1]!, accountId), await logTotals(connections[1]!, live));
    });
  });
}

settleSuite('SQLite, two connections to one file', () => {
  const dir = scratchDir();
  return [SqliteEventStore.inDataDir(dir), SqliteEventStore.inDataDir(dir)];
});

describe('on the EventStoreDB protocol stand-in (not a server)', () => {
  let standIn: EsdbStandIn | null = null;
  before(async () => {
    standIn = await EsdbStandIn.start();
  });
  after(async () => {
    await standIn?.stop();
  });
  settleSuite('EventStoreDB adapter, two connections', () => [EsdbEventStore.connect(standIn!.url), EsdbEventStore.connect(standIn!.url)]);
});
