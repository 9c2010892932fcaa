import assert from 'node:assert/strict';
import { usageStream } from '../../src/events/account-usage-events.ts';
import type { EventStore, ExpectedRevision, NewEvent, StreamAppend } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runFilterCommand, type FilterCommandDeps } from '../../src/http/run-filter-command.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const settings = { title: 't', context: ['home'], action: 'warn', expiresAt: null };
const caller = (accountId: string) => ({ accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' as const });
const deps = (events: EventStore): FilterCommandDeps => ({ events, catchUp: { waitFor: async () => true }, logger: silentLogger });
const now = () => new Date().toISOString();

/** The store, running `before()` ahead of its first append to a filter's stream (joint or not). */
function beforeFirstFilterAppend(store: EventStore, before: () => Promise<void>): EventStore {
  let first = true;
  const once = async () => {
    if (!first) return;
    first = false;
    await before();
  };
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'appendWith') {
        return async (name: string, events: readonly NewEvent[], expected: ExpectedRevision, alongside: StreamAppend) => {
          await once();
          return target.appendWith!(name, events, expected, alongside);
        };
      }
      if (key !== 'appendToStream') return Reflect.get(target, key) as unknown;
      return async (name: string, events: readonly NewEvent[], expected: ExpectedRevision) => {
        if (!name.startsWith(usageStream(''))) await once();
        return target.appendToStream(name, events, expected);
      };
    },
  });
}

// On SQLite a growing write's reservation on the usage ledger is appended with the filter's events
// (account-usage-check.ts, EventStore.appendWith): a write that loses its race stored no reservation, so
// it has none to give back, and the ledger holds exactly one change per stored write.
describe('the usage ledger on a store with joint appends (SQLite)', function () {
  this.timeout(60_000);
  let dir: string;
  let stores: SqliteEventStore[] = [];
  beforeEach(() => {
    dir = scratchDir();
    stores = [SqliteEventStore.inDataDir(dir), SqliteEventStore.inDataDir(dir)];
  });
  afterEach(() => Promise.all(stores.map((s) => s.close())));

  it('given a keyword added while another process retitles the filter, when the append loses that race and is run again, then the ledger holds one reservation for it and nothing released', async () => {
    const [store, sibling] = stores as [SqliteEventStore, SqliteEventStore];
    const accountId = newId();
    const filterId = newId();
    await runFilterCommand(deps(store), caller(accountId), {
      type: 'CreateFilter',
      data: { filterId, accountId, now: now(), settings, keywords: [{ id: newId(), keyword: 'abc', wholeWord: false }] },
    });
    // The other process's retitle moves the filter's stream between this write's read and its append.
    const racing = beforeFirstFilterAppend(store, async () => {
      await runFilterCommand(deps(sibling), caller(accountId), {
        type: 'UpdateFilter',
        data: { filterId, accountId, now: now(), settings: { title: 'renamed' } },
      });
    });
    const added = await runFilterCommand(deps(racing), caller(accountId), {
      type: 'UpdateFilter',
      data: { filterId, accountId, now: now(), addKeywords: [{ id: newId(), keyword: 'defg', wholeWord: false }] },
    });
    assert.equal(added.filter?.settings.title, 'renamed');
    assert.equal(added.filter?.keywords.length, 2);
    const ledger = await store.readStream(usageStream(accountId));
    // With the reservation appended before the filter's events, the lost race leaves a reservation and its release.
    assert.deepEqual(
      ledger.map((e) => (e.data as { reason: string }).reason),
      ['reserved', 'reserved'],
    );
    assert.deepEqual(
      ledger.map((e) => (e.data as { filters: number; keywordCharacters: number }).keywordCharacters),
      [3, 7],
    );
  });
});
