import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { commandEventId } from '../../src/commands/command-event-ids.ts';
import { filterDecider } from '../../src/commands/filter/decider.ts';
import type { FilterCommand } from '../../src/commands/filter/commands.ts';
import type { FilterState } from '../../src/commands/filter/filter-state.ts';
import { handleCommand } from '../../src/commands/handle-command.ts';
import { StreamStateCache } from '../../src/commands/stream-state-cache.ts';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { EventStoreUnavailableError, type EventStore } from '../../src/events/event-store.ts';
import { FILTER_EVENT_VERSIONS, readFilterEvent } from '../../src/events/filter-event-versions.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { addKeyword, createFilter, OWNER } from './support/filter-commands.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const STARTED = Date.parse('2026-11-22T10:00:00.000Z');

/** One run of `command` as command `commandId`: the same id on every run of the same command. */
const run = (store: EventStore, command: FilterCommand, commandId: string, mayHaveRun = true, states?: StreamStateCache<FilterState>) =>
  handleCommand(store, filterDecider, filterStream(command.data.filterId), command, {
    readEvent: readFilterEvent,
    ...(states ? { states } : {}),
    eventId: (index) => commandEventId(commandId, STARTED, index),
    mayHaveRun,
    metadata: (commitIndex, commitSize, event) =>
      eventMetadata({ accountId: OWNER, requestId: commandId, apiVersion: 'cli', commitIndex, commitSize, schemaVersion: FILTER_EVENT_VERSIONS[event.type] }),
  });

/** A store whose first append is stored but answered with a timeout, as a client sees a lost answer. */
function losingFirstAnswer(inner: EventStore): EventStore {
  let appends = 0;
  return {
    readStream: (name, options) => inner.readStream(name, options),
    readAll: (options) => inner.readAll(options),
    onAppend: (listener) => inner.onAppend(listener),
    close: () => inner.close(),
    async appendToStream(name, events, expected) {
      appends += 1;
      const result = await inner.appendToStream(name, events, expected);
      if (appends === 1) throw new EventStoreUnavailableError('deadline exceeded after the append was written');
      return result;
    },
  };
}

describe('Command event ids', () => {
  it('are UUIDv7 with the command start time, the same for the same command and index, different otherwise', () => {
    const id = commandEventId('c1', STARTED, 0);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(id.replaceAll('-', '').slice(0, 12), STARTED.toString(16).padStart(12, '0'));
    assert.equal(commandEventId('c1', STARTED, 0), id);
    assert.notEqual(commandEventId('c1', STARTED, 1), id);
    assert.notEqual(commandEventId('c2', STARTED, 0), id);
  });
});

const adapters: { name: string; open: () => Promise<EventStore> }[] = [{ name: 'SQLite', open: async () => SqliteEventStore.inDataDir(scratchDir()) }];
let standIn: EsdbStandIn | null = null;
adapters.push({ name: 'EventStoreDB protocol stand-in (not a server)', open: async () => EsdbEventStore.connect(standIn!.url) });

// Issue 23, defect 4: the same command retried (after a timeout, or racing itself) writes nothing twice.
describe('A command retried', function () {
  this.timeout(20_000);
  before(async () => {
    standIn = await EsdbStandIn.start('BatchAppend');
  });
  after(async () => {
    await standIn?.stop();
  });

  for (const adapter of adapters) {
    describe(`on ${adapter.name}`, () => {
      let store: EventStore;
      beforeEach(async () => {
        store = await adapter.open();
      });
      afterEach(() => store.close());

      it('after its answer was lost, writes nothing again and answers with the state and position of the first run', async () => {
        const filterId = newId();
        const commandId = randomUUID();
        await assert.rejects(run(losingFirstAnswer(store), createFilter(filterId), commandId), EventStoreUnavailableError);
        const first = await store.readStream(filterStream(filterId));
        const retried = await run(store, createFilter(filterId), commandId);
        assert.deepEqual(retried.events, []);
        assert.equal(retried.state.phase, 'active');
        assert.equal(retried.position, first.at(-1)!.position);
        assert.deepEqual(await store.readStream(filterStream(filterId)), first);
      });

      it('after later commands changed the stream, still finds its own events (past the state cache) and writes nothing', async () => {
        const filterId = newId();
        // The cache ends up holding a fold that already includes the keyword's event.
        const states = new StreamStateCache<FilterState>({ weigh: () => 1, maxWeight: 100 });
        await run(store, createFilter(filterId), randomUUID(), false, states);
        const commandId = randomUUID();
        const keyword = addKeyword(filterId, newId(), 'once');
        await run(store, keyword, commandId, false, states);
        await run(store, addKeyword(filterId, newId(), 'later'), randomUUID(), false, states);
        const retried = await run(store, keyword, commandId, true, states);
        assert.deepEqual(retried.events, []);
        const keywords = retried.state.phase === 'active' ? retried.state.keywords.map((k) => k.keyword) : [];
        assert.deepEqual(keywords, ['once', 'later']);
        assert.equal((await store.readStream(filterStream(filterId))).length, 3);
      });

      it('racing itself, stores its events once and answers both runs', async () => {
        const filterId = newId();
        const commandId = randomUUID();
        const runs = await Promise.all([run(store, createFilter(filterId), commandId), run(store, createFilter(filterId), commandId)]);
        assert.deepEqual(
          runs.map((r) => r.state.phase),
          ['active', 'active'],
        );
        assert.equal((await store.readStream(filterStream(filterId))).length, 1);
      });
    });
  }
});
