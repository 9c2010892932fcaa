import assert from 'node:assert/strict';
import { AccountUsageLedger } from '../../src/commands/filter/account-usage-ledger.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import type { EventStore, NewEvent, StreamAppend } from '../../src/events/event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runFilterCommand, type CommandRun, type FilterCommandDeps } from '../../src/http/run-filter-command.ts';
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

/** The seam: a connection whose appends to `stream` wait, once reached, until `release` is called. */
function heldAppend(store: EventStore, stream: string) {
  let reached!: () => void;
  let release!: () => void;
  const atSeam = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new Proxy(store, {
    get: (target, key) => {
      // A store with joint appends (SQLite) makes the filter's append with its reservation: held the same.
      if (key === 'appendWith' && target.appendWith) {
        return async (name: string, events: readonly NewEvent[], expected: Parameters<EventStore['appendToStream']>[2], alongside: StreamAppend) => {
          if (name === stream) {
            reached();
            await released;
          }
          return target.appendWith!(name, events, expected, alongside);
        };
      }
      if (key === 'appendToStream') {
        return async (name: string, events: readonly NewEvent[], expected: Parameters<EventStore['appendToStream']>[2]) => {
          if (name === stream) {
            reached();
            await released;
          }
          return target.appendToStream(name, events, expected);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { held, atSeam, release };
}

function replaySuite(name: string, connect: () => EventStore[]): void {
  describe(`Two runs of one command in two processes (a repeated Idempotency-Key) reserve on the usage ledger once: ${name}`, function () {
    this.timeout(120_000);
    let connections: EventStore[] = [];
    beforeEach(() => {
      connections = connect();
    });
    afterEach(async () => {
      await Promise.all(connections.map((c) => c.close()));
    });

    it("gives back the reservation of the run whose append was answered as the other run's replay", async () => {
      const accountId = newId();
      const filterId = newId();
      const now = new Date().toISOString();
      const command = {
        type: 'CreateFilter' as const,
        data: { filterId, accountId, now, settings, keywords: [{ id: newId(), keyword: 'abc', wholeWord: false }] },
      };
      // The first request's command, as the idempotency record hands it to the repeat
      const first: CommandRun = { commandId: newId(), startedAtMs: Date.parse(now), mayHaveRun: false };
      const seam = heldAppend(connections[0]!, filterStream(filterId));
      // Given the first run has reserved on the ledger and is held before its filter append
      const loser = runFilterCommand(apiProcess(seam.held), caller(accountId), command, first);
      await seam.atSeam;
      // When the repeat, in another process, runs the same command to the end, then the first one's append goes on
      const winner = await runFilterCommand(apiProcess(connections[1]!), caller(accountId), command, { ...first, mayHaveRun: true });
      seam.release();
      const replayed = await loser;
      // Then both answer the filter, and the ledger counts it once
      assert.equal(winner.filter?.filterId, filterId);
      assert.equal(replayed.filter?.filterId, filterId);
      assert.equal((await connections[0]!.readStream(filterStream(filterId))).length, 2);
      const totals = (await new AccountUsageLedger(connections[1]!).read({ accountId, requestId: 'test' })).totals;
      assert.deepEqual(totals, { filters: 1, keywordCharacters: 3 });
    });
  });
}

replaySuite('SQLite, two connections to one file', () => {
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
  replaySuite('EventStoreDB adapter, two connections', () => [EsdbEventStore.connect(standIn!.url), EsdbEventStore.connect(standIn!.url)]);
});
