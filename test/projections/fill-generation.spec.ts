import assert from 'node:assert/strict';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILL_POLICY, fillGeneration } from '../../src/projections/runtime/fill-generation.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import type { RunnerPolicy } from '../../src/projections/runtime/projection-runner.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const now = '2026-11-22T10:00:00.000Z';

/** Park–Miller: the same history run after run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

interface Written {
  readonly filterIds: string[];
  readonly accountIds: string[];
  readonly statusIds: string[];
  readonly last: bigint;
}

/** A history of `filters` filters of three accounts, each created, then changed in every way in turn, some deleted. */
async function writeHistory(events: SqliteEventStore, filters: number): Promise<Written> {
  const next = random(4242);
  const accountIds = [newId(), newId(), newId()];
  const live: { filterId: string; accountId: string; revision: bigint; statuses: string[] }[] = [];
  const written: Written = { filterIds: [], accountIds, statusIds: [], last: 0n };
  // Written as version 1 of every type, as logs from before keyword deltas are: KeywordsUpdated carries the
  // whole list, which both the rebuild and the live projector read through its upcaster.
  const append = async (filter: (typeof live)[number], batch: { type: FilterEvent['type']; data: object }[], expected: bigint | 'no_stream') => {
    const metadata = (commitIndex: number) => eventMetadata({ accountId: filter.accountId, commitIndex, commitSize: batch.length });
    const stored = batch.map((e, i) => ({ type: e.type, data: e.data, metadata: metadata(i) }));
    const result = await events.appendToStream(filterStream(filter.filterId), stored, expected);
    filter.revision = result.nextRevision;
    (written as { last: bigint }).last = result.position;
  };
  while (written.filterIds.length < filters || next() < 0.9) {
    if (live.length === 0 || (written.filterIds.length < filters && next() < 0.3)) {
      const filter = { filterId: newId(), accountId: accountIds[written.filterIds.length % 3]!, revision: -1n, statuses: [] as string[] };
      const { filterId, accountId } = filter;
      const keywords = [{ id: newId(), keyword: `k${filterId}`, wholeWord: true }];
      await append(
        filter,
        [
          { type: 'FilterCreated', data: { filterId, accountId, title: 'new', context: ['home'], action: 'warn', expiresAt: null, createdAt: now } },
          { type: 'KeywordsUpdated', data: { filterId, keywords, updatedAt: now } },
        ],
        'no_stream',
      );
      written.filterIds.push(filterId);
      live.push(filter);
      continue;
    }
    const index = Math.floor(next() * live.length);
    const filter = live[index]!;
    const { filterId } = filter;
    const roll = next();
    if (roll < 0.05) {
      await append(filter, [{ type: 'FilterDeleted', data: { filterId, deletedAt: now } }], filter.revision);
      live.splice(index, 1);
    } else if (roll < 0.3) {
      const title = `t${Math.floor(next() * 1000)}`;
      await append(
        filter,
        [{ type: 'FilterUpdated', data: { filterId, title, context: ['home', 'public'], action: 'hide', expiresAt: null, updatedAt: now } }],
        filter.revision,
      );
    } else if (roll < 0.55) {
      const keywords = [1, 2].map((k) => ({ id: newId(), keyword: `w${k}`, wholeWord: k === 1 }));
      await append(filter, [{ type: 'KeywordsUpdated', data: { filterId, keywords, updatedAt: now } }], filter.revision);
    } else if (roll < 0.85 || filter.statuses.length === 0) {
      const filterStatusId = newId();
      filter.statuses.push(filterStatusId);
      written.statusIds.push(filterStatusId);
      await append(filter, [{ type: 'StatusFiltered', data: { filterId, filterStatusId, statusId: newId(), filteredAt: now } }], filter.revision);
    } else {
      const filterStatusId = filter.statuses.shift()!;
      await append(filter, [{ type: 'StatusUnfiltered', data: { filterId, filterStatusId, statusId: '1', unfilteredAt: now } }], filter.revision);
    }
  }
  return written;
}

/** Everything a generation holds that a reader can see, tombstones and checkpoint included. */
async function contents(reads: ReadStore, { filterIds, accountIds, statusIds }: Written) {
  return {
    views: await Promise.all(filterIds.map((id) => reads.loadFilter(id))),
    accounts: await Promise.all(
      accountIds.map(
        async (a) =>
          [
            await reads.listFilters(a),
            await reads.listV1Filters(a),
            await reads.filtersVersion(a),
            await reads.accountUsage(a, '0'),
            await reads.accountUsage(a, filterIds[0]!),
          ] as const,
      ),
    ),
    statuses: await Promise.all(statusIds.map(async (s) => Promise.all(accountIds.map((a) => reads.findFilterStatus(a, s))))),
    checkpoint: await reads.checkpoint(FILTERS_PROJECTION),
  };
}

/** Counts the views a fill reads back from the read model. */
function countingReads(reads: ReadStore): { store: ReadStore; readBack: () => number } {
  let count = 0;
  const store = new Proxy(reads, {
    get(target, name, receiver) {
      if (name === 'loadFilters') {
        return async (ids: readonly string[]) => {
          count += ids.length;
          return target.loadFilters(ids);
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, readBack: () => count };
}

describe('Filling a generation: the same read models as the live projector, whatever it keeps in memory', function () {
  this.timeout(30_000);
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let written: Written;
  let live: Awaited<ReturnType<typeof contents>>;

  before(async () => {
    const dir = scratchDir();
    events = SqliteEventStore.inDataDir(dir);
    reads = SqliteReadStore.inDataDir(dir);
    written = await writeHistory(events, 60);
    // The live projector, batch by batch as the log is read, with the live bounds of its view cache.
    const projector = new FilterProjector(events, reads);
    await projector.start();
    assert.equal(await projector.waitFor(written.last, 10_000), true);
    await projector.stop();
    live = await contents(reads, written);
    assert.ok(live.views.filter(Boolean).length === 60 && live.views.some((v) => v?.deleted) && live.views.some((v) => v!.statuses.length > 1));
  });

  after(async () => {
    await Promise.all([reads.close(), events.close()]);
  });

  const fill = async (policy: RunnerPolicy) => {
    const generation = await reads.createGeneration();
    const { store, readBack } = countingReads(reads.generation(generation));
    const applied = await fillGeneration(events, store, written.last, { policy });
    return { generation, applied, readBack: readBack() };
  };

  it('reads no view back when its cache holds them all, having started from an empty read model', async () => {
    const { generation, readBack } = await fill({ ...FILL_POLICY, pageSize: 16, batchSize: 64 });
    assert.equal(readBack, 0);
    assert.deepEqual(await contents(reads.generation(generation), written), live);
  });

  it('reads back the views it let go when there are more filters than its cache holds, and stores the same', async () => {
    const { generation, readBack } = await fill({ ...FILL_POLICY, pageSize: 7, batchSize: 40, maxViews: 6, cache: { views: 5, bytes: Infinity } });
    assert.ok(readBack > 0, 'views read back from the read model');
    assert.deepEqual(await contents(reads.generation(generation), written), live);
  });

  it('bounds its cache by size as well as by count', async () => {
    const { generation, readBack } = await fill({ ...FILL_POLICY, pageSize: 16, batchSize: 50, cache: { views: Infinity, bytes: 4000 } });
    assert.ok(readBack > 0, 'views read back from the read model');
    assert.deepEqual(await contents(reads.generation(generation), written), live);
  });

  it('fills with the fill policy up to the checkpoint it was given', async () => {
    const { generation, applied } = await fill(FILL_POLICY);
    assert.equal(applied, Number(written.last));
    assert.deepEqual(await contents(reads.generation(generation), written), live);
  });
});
