import assert from 'node:assert/strict';
import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import type { EventMetadata, FilterEvent } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import { DEFAULT_POLICY, type RunnerPolicy } from '../../src/projections/runtime/projection-runner.ts';
import type { ProjectionBatch } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { faultyReadStore, type BatchHook } from '../support/faulty-read-store.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const now = '2026-11-26T06:00:00.000Z';
const QUICK: RunnerPolicy = { ...DEFAULT_POLICY, attemptsBeforeParking: 3, retryDelayMs: () => 1 };

function commit(accountId: string, events: FilterEvent[]) {
  return events.map((e, i) => {
    const metadata = eventMetadata({ accountId, requestId: newId(), commitIndex: i, commitSize: events.length, schemaVersion: FILTER_EVENT_VERSIONS[e.type] });
    return { type: e.type, data: e.data, metadata };
  });
}

const settings = (title: string) => ({ title, context: ['home' as const], action: 'warn' as const, expiresAt: null });
const keywords = (filterId: string, ...words: string[]): FilterEvent => ({
  type: 'KeywordsUpdated',
  data: {
    filterId,
    removed: [],
    changed: [],
    added: words.map((keyword) => ({ id: `${filterId}-${keyword}`, keyword, wholeWord: true })),
    replacesAll: false,
    updatedAt: now,
  },
});
const created = (filterId: string, accountId: string, word: string): FilterEvent[] => [
  { type: 'FilterCreated', data: { filterId, accountId, ...settings('old'), createdAt: now } },
  keywords(filterId, word),
];

describe('Projection batches end on commit boundaries; a commit that cannot be projected is parked whole', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let heard: string[];
  let notifier: InProcessBus;
  let projector: FilterProjector | null;
  let announcer: Announcer | null;

  beforeEach(() => {
    const dir = scratchDir();
    events = SqliteEventStore.inDataDir(dir);
    reads = SqliteReadStore.inDataDir(dir);
    notifier = new InProcessBus();
    heard = [];
    notifier.subscribe((subject) => heard.push(subject.slice('timeline.'.length)));
    projector = null;
    announcer = null;
  });

  afterEach(async () => {
    await announcer?.stop();
    await projector?.stop();
    await Promise.all([reads.close(), events.close()]);
  });

  const append = async (filterId: string, accountId: string, facts: FilterEvent[], expected: 'no_stream' | bigint) =>
    (await events.appendToStream(filterStream(filterId), commit(accountId, facts), expected)).position;

  const start = async (hook: BatchHook, policy: RunnerPolicy) => {
    const { logger, lines } = memoryLogger();
    const parked: number[] = [];
    const running = new Announcer(events, reads, notifier);
    announcer = running;
    projector = new FilterProjector(events, faultyReadStore(reads, hook), {
      onStored: () => running.poke(),
      logger,
      policy,
      observer: { stepFailed: () => {}, eventsParked: (n) => parked.push(n) },
    });
    await running.start();
    await projector.start();
    return { lines, parked };
  };

  it('given two-event commits and batches of 3 events, when projected, then every stored batch holds whole commits only', async () => {
    const accountId = newId();
    let last = 0n;
    for (let i = 0; i < 9; i += 1) {
      const filterId = newId();
      last = await append(filterId, accountId, created(filterId, accountId, `k${i}`), 'no_stream');
    }
    const stored: ProjectionBatch[] = [];
    await start((batch) => void stored.push(batch), { ...QUICK, batchSize: 3, pageSize: 3 });
    assert.equal(await projector!.waitFor(last, 5000), true);
    assert.ok(stored.length >= 4, `several batches (${stored.length})`);
    for (const batch of stored) {
      for (const view of batch.views) assert.equal(view.keywords.length, 1, `filter ${view.id} stored without its keyword at ${batch.position}`);
      const [atCheckpoint] = await events.readAll({ after: batch.position - 1n, limit: 1 });
      assert.equal((atCheckpoint!.metadata as EventMetadata).commitIndex, 1, `checkpoint ${batch.position} ends a commit`);
    }
    assert.equal((await reads.listFilters(accountId)).length, 9);
    assert.equal((await reads.listV1Filters(accountId)).length, 9);
  });

  it('given a commit whose second event cannot be projected, when projected, then neither of its changes is applied and both events are parked', async () => {
    const [alice, bob] = [newId(), newId()];
    const filterId = newId();
    await append(filterId, alice, created(filterId, alice, 'calm'), 'no_stream');
    const bad = await append(
      filterId,
      alice,
      [{ type: 'FilterUpdated', data: { filterId, ...settings('new'), updatedAt: now } }, keywords(filterId, 'poison')],
      1n,
    );
    const other = newId();
    const last = await append(other, bob, created(other, bob, 'fine'), 'no_stream');
    const { lines, parked } = await start((batch) => {
      if (batch.views.some((view) => view.keywords.some((k) => k.keyword === 'poison'))) throw new Error('cannot store this keyword');
    }, QUICK);
    assert.equal(await projector!.waitFor(last, 5000), true);
    const view = await reads.getFilter(alice, filterId);
    assert.equal(view?.title, 'old', 'the first event of the parked commit is not applied either');
    assert.deepEqual(
      view?.keywords.map((k) => k.keyword),
      ['calm'],
    );
    assert.deepEqual(
      (await reads.listV1Filters(alice)).map((r) => r.phrase),
      ['calm'],
    );
    assert.equal((await reads.listFilters(bob)).length, 1, 'other accounts keep moving');
    const records = await reads.parkedEvents(FILTERS_PROJECTION);
    assert.deepEqual(
      records.map((r) => [r.position, r.type, r.revision]),
      [
        [bad - 1n, 'FilterUpdated', 2n],
        [bad, 'KeywordsUpdated', 3n],
      ],
    );
    assert.deepEqual(parked, [2]);
    const line = lines.find((l) => /parked/.test(l.msg));
    assert.equal(line?.position, String(bad - 1n));
    assert.equal(line?.through, String(bad));
    await announcer!.announced(last);
    assert.deepEqual(heard, [alice, bob], 'the parked commit is not announced');
  });

  it('given a poison commit larger than a page, when isolated, then the whole commit is parked and the next one applied', async () => {
    const accountId = newId();
    const filterId = newId();
    await append(filterId, accountId, created(filterId, accountId, 'calm'), 'no_stream');
    const big: FilterEvent[] = [
      { type: 'FilterUpdated', data: { filterId, ...settings('new'), updatedAt: now } },
      keywords(filterId, 'a'),
      keywords(filterId, 'b'),
      keywords(filterId, 'poison'),
    ];
    const bad = await append(filterId, accountId, big, 1n);
    const last = await append(filterId, accountId, [keywords(filterId, 'after')], 5n);
    const { parked } = await start(
      (batch) => {
        if (batch.views.some((view) => view.keywords.some((k) => k.keyword === 'poison'))) throw new Error('cannot store this keyword');
      },
      { ...QUICK, batchSize: 2, pageSize: 2 },
    );
    assert.equal(await projector!.waitFor(last, 5000), true);
    const view = await reads.getFilter(accountId, filterId);
    assert.equal(view?.title, 'old');
    assert.deepEqual(
      view?.keywords.map((k) => k.keyword),
      ['calm', 'after'],
    );
    assert.deepEqual(parked, [4]);
    assert.deepEqual(
      (await reads.parkedEvents(FILTERS_PROJECTION)).map((r) => r.position),
      [bad - 3n, bad - 2n, bad - 1n, bad],
    );
  });
});
