import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import assert from 'node:assert/strict';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import { DEFAULT_POLICY, type RunnerPolicy } from '../../src/projections/runtime/projection-runner.ts';
import { ReadStoreUnavailableError } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { faultyReadStore, gate, type BatchHook } from '../support/faulty-read-store.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const now = '2026-11-22T10:00:00.000Z';
/** Retries at once: what is tested is what happens, not how long it waits. */
const QUICK: RunnerPolicy = { ...DEFAULT_POLICY, attemptsBeforeParking: 3, retryDelayMs: () => 1 };

function commit(accountId: string, events: FilterEvent[]) {
  return events.map((e, i) => {
    const metadata = eventMetadata({ accountId, commitIndex: i, commitSize: events.length, schemaVersion: FILTER_EVENT_VERSIONS[e.type] });
    return { type: e.type, data: e.data, metadata };
  });
}

function created(filterId: string, accountId: string, keywordId = newId()): FilterEvent[] {
  return [
    { type: 'FilterCreated', data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now } },
    {
      type: 'KeywordsUpdated',
      data: { filterId, removed: [], changed: [], added: [{ id: keywordId, keyword: 'k', wholeWord: true }], replacesAll: false, updatedAt: now },
    },
  ];
}

describe('Filter projector: batches, announcements after commit, poison events', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let heard: string[];
  let notifier: InProcessBus;
  let projector: FilterProjector | null;
  /** Announces from the log, as the lease holder does beside the projector. */
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

  const append = async (accountId: string, filterId = newId(), keywordId?: string) =>
    (await events.appendToStream(filterStream(filterId), commit(accountId, created(filterId, accountId, keywordId)), 'no_stream')).position;

  const start = async (hook: BatchHook, options: { policy?: RunnerPolicy; committed?: () => void } = {}) => {
    const store = faultyReadStore(reads, hook, options.committed);
    const { logger, lines } = memoryLogger();
    const parked: number[] = [];
    const running = new Announcer(events, reads, notifier);
    announcer = running;
    projector = new FilterProjector(events, store, {
      onStored: () => running.poke(),
      logger,
      policy: options.policy ?? QUICK,
      observer: { stepFailed: () => {}, eventsParked: (n) => parked.push(n) },
    });
    // First: one that never ran starts where the read models stand, before the projector moves them.
    await running.start();
    await projector.start();
    return { store, lines, parked };
  };

  it('stores everything waiting in the log as one batch, with the checkpoint at its last event', async () => {
    const accounts = Array.from({ length: 40 }, () => newId());
    let last = 0n;
    for (const accountId of accounts) last = await append(accountId);
    const batches: number[] = [];
    await start((batch) => void batches.push(batch.views.length));
    assert.equal(await projector!.waitFor(last, 5000), true);
    assert.deepEqual(batches, [40], 'one transaction for 80 events of 40 filters');
    assert.equal(await reads.checkpoint(FILTERS_PROJECTION), last);
    await announcer!.announced(last);
    assert.deepEqual(heard, accounts, 'one announcement per commit, in log order');
  });

  it('announces nothing of a batch whose transaction failed, and announces it once it commits', async () => {
    const accountId = newId();
    const seenWhenRetried: string[][] = [];
    let committed = false;
    notifier.subscribe(() => assert.ok(committed, 'announced before its transaction committed'));
    const { store } = await start(
      (_batch, call) => {
        if (call === 1) throw new Error('the read store fails once');
        seenWhenRetried.push([...heard]);
      },
      { committed: () => (committed = true) },
    );
    const position = await append(accountId);
    assert.equal(await projector!.waitFor(position, 5000), true);
    assert.deepEqual(seenWhenRetried[0], [], 'nothing announced after the failed attempt');
    await announcer!.announced(position);
    assert.deepEqual(heard, [accountId]);
    assert.equal(store.calls >= 2, true);
  });

  it('projects two filters of different accounts that share a keyword id, and moves on', async () => {
    const keywordId = newId();
    const [alice, bob] = [newId(), newId()];
    const [aliceFilter, bobFilter] = [newId(), newId()];
    await append(alice, aliceFilter, keywordId);
    const position = await append(bob, bobFilter, keywordId);
    await start(() => {});
    assert.equal(await projector!.waitFor(position, 5000), true);
    assert.equal((await reads.getV1Filter(alice, keywordId))?.filterId, aliceFilter);
    assert.equal((await reads.getV1Filter(bob, keywordId))?.filterId, bobFilter);
    assert.deepEqual(await reads.parkedEvents(FILTERS_PROJECTION), []);
  });

  it('parks a commit that keeps failing, whole, logs its position, counts it, and keeps every other account moving', async () => {
    const [alice, mallory, bob] = [newId(), newId(), newId()];
    const poisoned = newId();
    await append(alice);
    const bad = await append(mallory, poisoned);
    const last = await append(bob);
    const { lines, parked } = await start((batch) => {
      if (batch.views.some((view) => view.id === poisoned)) throw new Error('cannot store this one');
    });
    assert.equal(await projector!.waitFor(last, 5000), true);
    assert.equal((await reads.listFilters(alice)).length, 1);
    assert.equal((await reads.listFilters(bob)).length, 1);
    assert.deepEqual(await reads.listFilters(mallory), []);
    const records = await reads.parkedEvents(FILTERS_PROJECTION);
    assert.deepEqual(
      records.map((r) => [r.streamName, r.type, r.revision, r.error]),
      [
        [filterStream(poisoned), 'FilterCreated', 0n, 'Error: cannot store this one'],
        [filterStream(poisoned), 'KeywordsUpdated', 1n, 'Error: cannot store this one'],
      ],
    );
    assert.deepEqual(
      records.map((r) => r.position),
      [bad - 1n, bad],
      'the commit that failed, whole, not its neighbours',
    );
    assert.deepEqual(parked, [2]);
    const line = lines.find((l) => /parked/.test(l.msg));
    assert.equal(line?.position, String(bad - 1n));
    assert.equal(line?.level, 50);
    await announcer!.announced(last);
    assert.deepEqual(heard, [alice, bob], 'the parked commit is not announced');
    assert.equal(projector!.failure, null);
  });

  it('never parks while the store cannot be reached: it reports where it is stuck and goes on once the store is back', async () => {
    const accountId = newId();
    const outage = gate();
    let failureDuringOutage: unknown = null;
    const { parked } = await start(async (_batch, call) => {
      if (call === 5) failureDuringOutage = projector!.failure;
      if (call <= 6) throw new ReadStoreUnavailableError('down');
      await outage.promise;
    });
    const position = await append(accountId);
    const projected = projector!.waitFor(position, 10_000);
    outage.open();
    assert.equal(await projected, true);
    assert.deepEqual(failureDuringOutage && { ...failureDuringOutage, since: 'x' }, {
      stage: 'apply',
      position: String(position - 1n),
      error: 'ReadStoreUnavailableError: down',
      // Calls 1-4 failed: the batch is that one commit, so there is nothing to isolate.
      failures: 4,
      since: 'x',
    });
    assert.deepEqual(parked, []);
    assert.deepEqual(await reads.parkedEvents(FILTERS_PROJECTION), []);
    assert.equal((await reads.listFilters(accountId)).length, 1);
    assert.equal(projector!.failure, null);
  });

  it('counts only real failures toward parking, not the outage before them (issue 23, defect 8)', async () => {
    const accountId = newId();
    let calls = 0;
    const { parked } = await start((batch) => {
      if (batch.views.length === 0) return;
      calls += 1;
      // An outage longer than the parking threshold, then one error as a server restarting gives (11600).
      if (calls <= 4) throw new ReadStoreUnavailableError('down');
      if (calls === 5) throw new Error('InterruptedAtShutdown, once');
    });
    const position = await append(accountId);
    assert.equal(await projector!.waitFor(position, 10_000), true);
    assert.deepEqual(parked, []);
    assert.deepEqual(await reads.parkedEvents(FILTERS_PROJECTION), []);
    assert.equal((await reads.listFilters(accountId)).length, 1);
  });

  it('stops parking after a run of parked events, which looks like a fault of the store or the code', async () => {
    for (let i = 0; i < 4; i += 1) await append(newId());
    const stuck = gate();
    const { parked } = await start(
      (batch, call) => {
        if (batch.views.length > 0) {
          if (call > 40) stuck.open();
          throw new Error('every write fails');
        }
      },
      { policy: { ...QUICK, parkedInARowLimit: 2 } },
    );
    await stuck.promise;
    assert.deepEqual(parked, [2, 2], 'two commits of two events each');
    assert.equal((await reads.parkedEvents(FILTERS_PROJECTION)).length, 4);
    assert.match(projector!.failure?.error ?? '', /every write fails/);
  });
});
