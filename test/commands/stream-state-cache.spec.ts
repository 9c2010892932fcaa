import assert from 'node:assert/strict';
import type { FilterCommand } from '../../src/commands/filter/commands.ts';
import { filterDecider } from '../../src/commands/filter/decider.ts';
import { filterStateWeight, type FilterState } from '../../src/commands/filter/filter-state.ts';
import { StreamStateCache } from '../../src/commands/stream-state-cache.ts';
import type { EventStore, ReadStreamOptions } from '../../src/events/event-store.ts';
import { readFilterEvent } from '../../src/events/filter-event-versions.ts';
import { filterStream, type FilterEvent } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { addKeyword, createFilter, NOW, OWNER, rename, runCommand } from './support/filter-commands.ts';

/** A real store that records what each stream read asked for. */
function recording(inner: EventStore) {
  const reads: (bigint | undefined)[] = [];
  const store: EventStore = {
    readStream: (name: string, options?: ReadStreamOptions) => (reads.push(options?.after), inner.readStream(name, options)),
    readAll: (options) => inner.readAll(options),
    onAppend: (listener) => inner.onAppend(listener),
    close: () => inner.close(),
    appendToStream: (name, events, expected) => inner.appendToStream(name, events, expected),
  };
  return { store, reads };
}

/** The filter as a fold of its whole stored stream, without any cache. */
async function foldedFromScratch(events: EventStore, filterId: string): Promise<FilterState> {
  return (await events.readStream(filterStream(filterId)))
    .map(readFilterEvent)
    .filter((e): e is FilterEvent => e !== null)
    .reduce(filterDecider.evolve, filterDecider.initialState());
}

const filterStatus = (filterId: string, statusId: string): FilterCommand => ({
  type: 'FilterStatus',
  data: { filterId, accountId: OWNER, now: NOW, filterStatusId: newId(), statusId },
});

describe('Stream state cache', () => {
  let events: SqliteEventStore;
  let dataDir: string;
  let filterId: string;
  let states: StreamStateCache<FilterState>;

  beforeEach(async () => {
    dataDir = scratchDir();
    events = SqliteEventStore.inDataDir(dataDir);
    filterId = newId();
    states = new StreamStateCache<FilterState>();
    await runCommand(events, createFilter(filterId));
  });
  afterEach(() => events.close());

  it('given a cached fold, when the next command runs, then it reads only the events after it', async () => {
    const { store, reads } = recording(events);
    await runCommand(store, addKeyword(filterId, newId(), 'one'), readFilterEvent, states);
    await runCommand(store, addKeyword(filterId, newId(), 'two'), readFilterEvent, states);
    await runCommand(store, rename(filterId, 'three'), readFilterEvent, states);
    assert.deepEqual(reads, [undefined, 0n, 1n]);
    assert.equal(states.get(filterStream(filterId))?.revision, 2n);
  });

  it('given a cached fold, when another connection appends meanwhile, then the next command builds on that append', async () => {
    await runCommand(events, addKeyword(filterId, newId(), 'mine-1'), readFilterEvent, states);
    const sibling = SqliteEventStore.inDataDir(dataDir);
    try {
      await runCommand(sibling, addKeyword(filterId, newId(), 'theirs'));
    } finally {
      await sibling.close();
    }
    const outcome = await runCommand(events, addKeyword(filterId, newId(), 'mine-2'), readFilterEvent, states);
    assert.equal(outcome.state.phase, 'active');
    if (outcome.state.phase === 'active')
      assert.deepEqual(
        outcome.state.keywords.map((k) => k.keyword),
        ['mine-1', 'theirs', 'mine-2'],
      );
    assert.deepEqual(outcome.state, await foldedFromScratch(events, filterId));
  });

  it('given a cached fold, when a command loses a race, then its retry folds the winner in once', async () => {
    await runCommand(events, filterStatus(filterId, '100'), readFilterEvent, states);
    let raced = false;
    const racing: EventStore = {
      ...recording(events).store,
      async appendToStream(name, appended, expected) {
        if (!raced) {
          raced = true;
          await runCommand(events, filterStatus(filterId, '200'));
        }
        return events.appendToStream(name, appended, expected);
      },
    };
    const outcome = await runCommand(racing, filterStatus(filterId, '300'), readFilterEvent, states);
    // Statuses accumulate event by event: folding any event twice (or missing one) changes this list.
    assert.equal(outcome.state.phase, 'active');
    if (outcome.state.phase === 'active')
      assert.deepEqual(
        outcome.state.statuses.map((s) => s.statusId),
        ['100', '200', '300'],
      );
    const next = await runCommand(events, rename(filterId, 'after the race'), readFilterEvent, states);
    assert.deepEqual(next.state, await foldedFromScratch(events, filterId));
  });

  it('keeps a later fold over an earlier one and drops the least recently written streams when full', () => {
    const small = new StreamStateCache<string>({ maxWeight: 2 });
    small.remember('a', 5n, 'a5');
    small.remember('a', 3n, 'a3');
    assert.equal(small.get('a')?.state, 'a5');
    small.remember('b', 0n, 'b0');
    small.remember('a', 6n, 'a6');
    small.remember('c', 0n, 'c0');
    assert.equal(small.get('b'), undefined);
    assert.equal(small.get('a')?.state, 'a6');
    assert.equal(small.get('c')?.state, 'c0');
    assert.deepEqual(small.size, { streams: 2, weight: 2 });
  });

  it('bounds what it keeps by weight: a heavy state pushes out as many light ones as it must, and one heavier than the bound is not kept', () => {
    const cache = new StreamStateCache<number>({ weigh: (n) => n, maxWeight: 10 });
    for (const name of ['a', 'b', 'c', 'd']) cache.remember(name, 0n, 2);
    cache.remember('heavy', 0n, 5);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'heavy'].filter((name) => cache.get(name) !== undefined),
      ['c', 'd', 'heavy'],
    );
    assert.deepEqual(cache.size, { streams: 3, weight: 9 });
    cache.remember('c', 1n, 1);
    assert.deepEqual(cache.size, { streams: 3, weight: 8 }, 'a state kept again replaces its old weight');
    cache.remember('huge', 0n, 11);
    assert.equal(cache.get('huge'), undefined);
    assert.deepEqual(cache.size, { streams: 3, weight: 8 });
  });

  it('weighs a filter by its keywords and statuses', async () => {
    const outcome = await runCommand(events, addKeyword(filterId, newId(), 'one'));
    await runCommand(events, filterStatus(filterId, '1'));
    assert.equal(filterStateWeight((await runCommand(events, rename(filterId, 'x'))).state), 3);
    assert.equal(filterStateWeight(outcome.state), 2);
    assert.equal(filterStateWeight(filterDecider.initialState()), 1);
  });

  it('refuses a bound that could hold nothing', () => {
    assert.throws(() => new StreamStateCache({ maxWeight: 0 }), RangeError);
    assert.throws(() => new StreamStateCache({ maxWeight: 1.5 }), RangeError);
  });
});
