import assert from 'node:assert/strict';
import { ConflictError, ValidationError } from '../../src/commands/errors.ts';
import { AccountUsageLedger, filterUsage } from '../../src/commands/filter/account-usage-ledger.ts';
import type { KeywordDraft } from '../../src/commands/filter/commands.ts';
import { evolve, initialState } from '../../src/commands/filter/filter-state.ts';
import { FILTER_LIMITS } from '../../src/commands/filter/filter-limits.ts';
import { usageStream, type UsageTotals } from '../../src/events/account-usage-events.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import type { EventStore, ReadStreamOptions } from '../../src/events/event-store.ts';
import { readFilterEvent } from '../../src/events/filter-event-versions.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runFilterCommand, type FilterCommandDeps } from '../../src/http/run-filter-command.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

/** A filter of exactly the per-filter maximum: five of them fill an account. */
const FULL = FILTER_LIMITS.keywordCharactersPerFilter;
const FIT = FILTER_LIMITS.keywordCharactersPerAccount / FULL;
const ACCOUNT_MESSAGE = `Validation failed: Keywords are too long together (maximum is ${FILTER_LIMITS.keywordCharactersPerAccount} characters per account)`;
const settings = { title: 't', context: ['home'], action: 'warn', expiresAt: null };
const keywords = (characters: number): KeywordDraft[] =>
  Array.from({ length: Math.ceil(characters / 500) }, (_, i) => ({ id: newId(), keyword: 'k'.repeat(Math.min(500, characters - i * 500)), wholeWord: false }));

/** One API process: its own connection to the store, its own turns per account, its own ledger cache. */
const apiProcess = (events: EventStore): FilterCommandDeps => ({
  events,
  catchUp: { waitFor: async () => true },
  logger: silentLogger,
});

/** 'created', 'conflict' (every retry lost its race) or the validation message. */
type Outcome = string;

async function create(deps: FilterCommandDeps, accountId: string, created: string[], characters: number = FULL): Promise<Outcome> {
  const filterId = newId();
  try {
    await runFilterCommand(
      deps,
      { accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' },
      {
        type: 'CreateFilter',
        data: { filterId, accountId, now: new Date().toISOString(), settings, keywords: keywords(characters) },
      },
    );
    created.push(filterId);
    return 'created';
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    if (error instanceof ConflictError) return 'conflict';
    throw error;
  }
}

/** What the filter streams themselves hold, folded. */
async function logTotals(events: EventStore, filterIds: readonly string[]): Promise<UsageTotals> {
  let totals = { filters: 0, keywordCharacters: 0 };
  for (const id of filterIds) {
    const folded = (await events.readStream(filterStream(id))).reduce((state, recorded) => evolve(state, readFilterEvent(recorded)!), initialState());
    const usage = filterUsage(folded);
    totals = { filters: totals.filters + usage.filters, keywordCharacters: totals.keywordCharacters + usage.keywordCharacters };
  }
  return totals;
}

const ledgerTotals = async (events: EventStore, accountId: string) => (await new AccountUsageLedger(events).read({ accountId, requestId: 'test' })).totals;

interface Adapter {
  /** Connections to one store, as separate processes would hold them. */
  readonly connect: () => Promise<EventStore[]>;
}

function ledgerSuite(name: string, adapter: Adapter): void {
  describe(`Per-account limits judged on the usage ledger: ${name}`, function () {
    this.timeout(120_000);
    let connections: EventStore[] = [];
    beforeEach(async () => {
      connections = await adapter.connect();
    });
    afterEach(async () => {
      await Promise.all(connections.map((c) => c.close()));
    });

    it(`lets writers in ${3} processes racing with 12 creates of ${FULL} characters store exactly ${FIT}, never more`, async () => {
      const accountId = newId();
      const created: string[] = [];
      const writers = connections.map(apiProcess);
      const raced = await Promise.all(Array.from({ length: 12 }, (_, i) => create(writers[i % writers.length]!, accountId, created)));
      assert.ok(
        raced.every((o) => o === 'created' || o === 'conflict' || o === ACCOUNT_MESSAGE),
        raced.join(' | '),
      );
      assert.ok(created.length <= FIT, `${created.length} creates passed the limit together: ${raced.join(' | ')}`);
      // A writer that lost every retry of its race leaves room that the next ones take, and no more.
      while ((await create(writers[0]!, accountId, created)) === 'created');
      assert.equal(created.length, FIT);
      assert.deepEqual(await logTotals(connections[0]!, created), { filters: FIT, keywordCharacters: FIT * FULL });
      assert.deepEqual(await ledgerTotals(connections[1]!, accountId), await logTotals(connections[1]!, created));
    });

    it('gives back room when a filter is deleted or its keywords removed, by recording the shrink after its append', async () => {
      const accountId = newId();
      const created: string[] = [];
      const [one, two] = connections.map(apiProcess);
      for (let i = 0; i < FIT; i += 1) assert.equal(await create(one!, accountId, created), 'created');
      assert.equal(await create(two!, accountId, created, 1), ACCOUNT_MESSAGE);
      const caller = { accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' as const };
      const now = new Date().toISOString();
      await runFilterCommand(two!, caller, { type: 'DeleteFilter', data: { filterId: created.shift()!, accountId, now } });
      assert.equal(await create(one!, accountId, created, FULL - 500), 'created');
      const [first] = (await connections[0]!.readStream(filterStream(created[0]!))).flatMap((e) =>
        e.type === 'KeywordsUpdated' ? (e.data as { added: KeywordDraft[] }).added : [],
      );
      await runFilterCommand(one!, caller, { type: 'UpdateFilter', data: { filterId: created[0]!, accountId, now, removeKeywords: [first!.id] } });
      assert.equal(await create(two!, accountId, created, 1_000), 'created');
      assert.equal(await create(two!, accountId, created, 1), ACCOUNT_MESSAGE);
      assert.deepEqual(await ledgerTotals(connections[1]!, accountId), await logTotals(connections[0]!, created));
    });

    it('counts the filters an account had before its ledger existed, once, from the log', async () => {
      const accountId = newId();
      const created: string[] = [];
      for (let i = 0; i < FIT - 1; i += 1) {
        const filterId = newId();
        const metadata = eventMetadata({ accountId });
        const added = { filterId, removed: [], changed: [], added: keywords(FULL), replacesAll: false, updatedAt: new Date().toISOString() };
        await connections[0]!.appendToStream(
          filterStream(filterId),
          [
            { type: 'FilterCreated', data: { filterId, accountId, ...settings, createdAt: added.updatedAt }, metadata },
            { type: 'KeywordsUpdated', data: added, metadata: { ...metadata, commitIndex: 1, commitSize: 2, schemaVersion: 2 } },
          ],
          'no_stream',
        );
        created.push(filterId);
      }
      const writer = apiProcess(connections[1]!);
      // A refused request writes nothing, not even the count.
      assert.match(await create(writer, accountId, created, FULL + 1), /maximum is 20000 characters per filter/);
      assert.deepEqual(await connections[0]!.readStream(usageStream(accountId)), []);
      assert.equal(await create(writer, accountId, created), 'created');
      assert.equal(await create(writer, accountId, created, 1), ACCOUNT_MESSAGE);
      assert.deepEqual(await ledgerTotals(connections[0]!, accountId), { filters: FIT, keywordCharacters: FIT * FULL });
    });

    it('reads a ledger it has not seen by its last event alone, whatever its length', async () => {
      const accountId = newId();
      const created: string[] = [];
      const writer = apiProcess(connections[0]!);
      for (let i = 0; i < 3; i += 1) assert.equal(await create(writer, accountId, created, 10), 'created');
      const store = connections[1]!;
      const streamsRead: string[] = [];
      const counting = new Proxy(store, {
        get: (target, key) => {
          if (key === 'readStream') {
            return (name: string, options?: ReadStreamOptions) => {
              streamsRead.push(name);
              return target.readStream(name, options);
            };
          }
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      assert.deepEqual(await ledgerTotals(counting, accountId), { filters: 3, keywordCharacters: 30 });
      assert.deepEqual(streamsRead, []);
    });

    it('releases the reservation of a write whose filter append lost its race, so the ledger ends equal to the log', async () => {
      const accountId = newId();
      const created: string[] = [];
      const writers = connections.map(apiProcess);
      assert.equal(await create(writers[0]!, accountId, created, 0), 'created');
      const filterId = created[0]!;
      // Every writer adds to the same filter at once: their reservations succeed one after another on the
      // ledger while their filter appends collide, so most are released and re-run.
      const adds = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          runFilterCommand(
            writers[i % writers.length]!,
            { accountId, tokenId: null, requestId: newId(), apiVersion: 'v2' },
            {
              type: 'UpdateFilter',
              data: { filterId, accountId, now: new Date().toISOString(), addKeywords: keywords(100) },
            },
          ),
        ),
      );
      assert.ok(adds.some((a) => a.status === 'fulfilled'));
      for (const add of adds) if (add.status === 'rejected') assert.ok(add.reason instanceof ConflictError, String(add.reason));
      assert.deepEqual(await ledgerTotals(connections[2]!, accountId), await logTotals(connections[2]!, created));
    });
  });
}

ledgerSuite('SQLite, three connections to one file', {
  async connect() {
    const dir = scratchDir();
    return [SqliteEventStore.inDataDir(dir), SqliteEventStore.inDataDir(dir), SqliteEventStore.inDataDir(dir)];
  },
});

describe('on the EventStoreDB protocol stand-in (not a server)', () => {
  let standIn: EsdbStandIn | null = null;
  before(async () => {
    standIn = await EsdbStandIn.start();
  });
  after(async () => {
    await standIn?.stop();
  });
  ledgerSuite('EventStoreDB adapter, three connections', {
    connect: async () => [EsdbEventStore.connect(standIn!.url), EsdbEventStore.connect(standIn!.url), EsdbEventStore.connect(standIn!.url)],
  });
});
