import assert from 'node:assert/strict';
import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import { filterStream, type FilterEvent } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILL_POLICY, FillError, fillGeneration } from '../../src/projections/runtime/fill-generation.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/projection-name.ts';
import { ReadStoreUnavailableError, type ProjectionBatch, type ReadStore } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { eventMetadata } from '../support/event-metadata.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** A generation whose every batch write finds the read models unreachable; `tries` counts them. */
function unreachable(inner: ReadStore): ReadStore & { readonly tries: number } {
  let tries = 0;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'tries') return tries;
      if (property === 'applyBatch')
        return (_batch: ProjectionBatch) => {
          tries += 1;
          return Promise.reject(new ReadStoreUnavailableError('the read models are away'));
        };
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as ReadStore & { readonly tries: number };
}

describe('Filling a generation whose store stays unreachable', () => {
  it('gives up with a FillError once the runner has failed one try more than parking allows, and parks nothing', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    try {
      const [filterId, accountId] = [newId(), newId()];
      const created: FilterEvent = {
        type: 'FilterCreated',
        data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: '2026-11-22T10:00:00.000Z' },
      };
      const metadata = eventMetadata({ accountId, schemaVersion: FILTER_EVENT_VERSIONS.FilterCreated });
      const { position } = await events.appendToStream(filterStream(filterId), [{ type: created.type, data: created.data, metadata }], 'no_stream');
      const generation = await reads.createGeneration();
      const target = unreachable(reads.generation(generation));
      const policy = { ...FILL_POLICY, attemptsBeforeParking: 3, retryDelayMs: () => 1 };
      await assert.rejects(fillGeneration(events, target, position, { policy }), (error: unknown) => {
        assert.ok(error instanceof FillError);
        assert.match(error.message, /^could not fill the read models: ReadStoreUnavailableError: the read models are away$/);
        return true;
      });
      assert.equal(target.tries, 4);
      assert.deepEqual(await reads.generation(generation).parkedEvents(FILTERS_PROJECTION), []);
    } finally {
      await Promise.all([reads.close(), events.close()]);
    }
  });
});
