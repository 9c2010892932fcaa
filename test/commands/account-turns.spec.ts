import assert from 'node:assert/strict';
import { AccountUsageLedger } from '../../src/commands/filter/account-usage-ledger.ts';
import { usageStream } from '../../src/events/account-usage-events.ts';
import type { EventStore, ExpectedRevision, NewEvent, StreamAppend } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runFilterCommand, type FilterCommandDeps } from '../../src/http/run-filter-command.ts';
import { isErrorNamed } from '../../src/shared/error-by-name.ts';
import { ConcurrencyError } from '../../src/events/event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const settings = { title: 't', context: ['home'], action: 'warn', expiresAt: null };
const caller = (accountId: string) => ({ accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' as const });
const create = (deps: FilterCommandDeps, accountId: string) =>
  runFilterCommand(deps, caller(accountId), {
    type: 'CreateFilter',
    data: { filterId: newId(), accountId, now: new Date().toISOString(), settings, keywords: [{ id: newId(), keyword: 'kw', wholeWord: false }] },
  });

/**
 * The store, with each filter-stream append first awaiting `hold()` and every ledger conflict counted.
 * `joint: false` hides `appendWith`, as a store appending to one stream at a time (EventStoreDB) has none.
 */
function observed(store: EventStore, hold: () => Promise<void>, joint: boolean) {
  const seen = { ledgerConflicts: 0 };
  const counted = async <T>(append: () => Promise<T>): Promise<T> => {
    try {
      return await append();
    } catch (error) {
      if (isErrorNamed(error, ConcurrencyError) && error.streamName.startsWith(usageStream(''))) seen.ledgerConflicts += 1;
      throw error;
    }
  };
  const events = new Proxy(store, {
    get: (target, key) => {
      if (key === 'appendWith') {
        if (!joint) return undefined;
        return async (name: string, appended: readonly NewEvent[], expected: ExpectedRevision, alongside: StreamAppend) => {
          await hold();
          return counted(() => target.appendWith!(name, appended, expected, alongside));
        };
      }
      if (key !== 'appendToStream') return Reflect.get(target, key) as unknown;
      return async (name: string, appended: readonly NewEvent[], expected: ExpectedRevision) => {
        if (!name.startsWith(usageStream(''))) await hold();
        return counted(() => target.appendToStream(name, appended, expected));
      };
    },
  });
  return { events, seen };
}

const created = async (accountId: string, store: EventStore) => (await new AccountUsageLedger(store).read({ accountId, requestId: 'test' })).totals.filters;

// One account's growing writes take turns in a process (http/run-filter-command.ts) only from the
// ledger's read to the reservation's append (on SQLite the joint append of the reservation and the
// filter's events): the wait for the read models, and on a store without joint appends the filter's own
// append and its group commit, must not hold up the account's next write, yet two judgements never read
// one revision.
describe('one account’s writes take turns on its usage ledger only', () => {
  let store: SqliteEventStore;
  beforeEach(() => {
    store = SqliteEventStore.inDataDir(scratchDir());
  });
  afterEach(() => store.close());

  it('given a create whose filter append is held (a store without joint appends), when a second create of the account runs, then it is judged and answered meanwhile', async () => {
    const accountId = newId();
    let reachedAppend!: () => void;
    const firstAtAppend = new Promise<void>((resolve) => (reachedAppend = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let appends = 0;
    const { events, seen } = observed(
      store,
      async () => {
        appends += 1;
        if (appends === 1) {
          reachedAppend();
          await gate;
        }
      },
      false,
    );
    const deps: FilterCommandDeps = { events, catchUp: { waitFor: async () => true }, logger: silentLogger };
    const first = create(deps, accountId);
    await firstAtAppend;
    // With the turn held to the end of the first command, this never ends (and the test times out).
    const second = await create(deps, accountId);
    assert.equal(second.filter?.phase, 'active');
    letGo();
    assert.equal((await first).filter?.phase, 'active');
    assert.equal(await created(accountId, store), 2);
    assert.equal(seen.ledgerConflicts, 0);
  });

  it('given a create waiting for the read models after its joint append, when a second create of the account runs, then it is judged and answered meanwhile', async () => {
    const accountId = newId();
    const { events, seen } = observed(store, async () => {}, true);
    let reachedWait!: () => void;
    const firstWaits = new Promise<void>((resolve) => (reachedWait = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let waits = 0;
    const catchUp = {
      waitFor: async () => {
        waits += 1;
        if (waits === 1) {
          reachedWait();
          await gate;
        }
        return true;
      },
    };
    const deps: FilterCommandDeps = { events, catchUp, logger: silentLogger };
    const first = create(deps, accountId);
    await firstWaits;
    const second = await create(deps, accountId);
    assert.equal(second.filter?.phase, 'active');
    letGo();
    assert.equal((await first).filter?.phase, 'active');
    assert.equal(await created(accountId, store), 2);
    assert.equal(seen.ledgerConflicts, 0);
  });

  for (const joint of [true, false]) {
    it(`given eight creates of one account at once, when they run, then none loses a race on the ledger and it counts eight (${joint ? 'joint appends' : 'two appends each'})`, async () => {
      const accountId = newId();
      const { events, seen } = observed(store, async () => {}, joint);
      const deps: FilterCommandDeps = { events, catchUp: { waitFor: async () => true }, logger: silentLogger };
      const answers = await Promise.all(Array.from({ length: 8 }, () => create(deps, accountId)));
      assert.equal(answers.filter((a) => a.filter?.phase === 'active').length, 8);
      // Without the turns, all eight read one revision and seven lose (then retry).
      assert.equal(seen.ledgerConflicts, 0);
      assert.equal(await created(accountId, store), 8);
    });
  }
});
