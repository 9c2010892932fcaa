import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import assert from 'node:assert/strict';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const now = '2026-11-22T10:00:00.000Z';

function commit(accountId: string, events: FilterEvent[]) {
  return events.map((e, i) => {
    const metadata = eventMetadata({ accountId, commitIndex: i, commitSize: events.length, schemaVersion: FILTER_EVENT_VERSIONS[e.type] });
    return { type: e.type, data: e.data, metadata };
  });
}

function created(filterId: string, accountId: string): FilterEvent[] {
  return [
    { type: 'FilterCreated', data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now } },
    {
      type: 'KeywordsUpdated',
      data: { filterId, removed: [], changed: [], added: [{ id: newId(), keyword: 'k', wholeWord: true }], replacesAll: false, updatedAt: now },
    },
  ];
}

describe('Filter projector', () => {
  it('projects appended events and resumes from its checkpoint', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const accountId = newId();
    const first = newId();
    let reads = SqliteReadStore.inDataDir(dir);
    let projector = new FilterProjector(events, reads);
    await projector.start();
    const appended = await events.appendToStream(filterStream(first), commit(accountId, created(first, accountId)), 'no_stream');
    assert.equal(await projector.waitFor(appended.position, 2000), true);
    assert.equal((await reads.listFilters(accountId)).length, 1);
    await projector.stop();
    await reads.close();

    const second = newId();
    const later = await events.appendToStream(filterStream(second), commit(accountId, created(second, accountId)), 'no_stream');
    reads = SqliteReadStore.inDataDir(dir);
    assert.equal(await reads.checkpoint(FILTERS_PROJECTION), appended.position);
    projector = new FilterProjector(events, reads);
    await projector.start();
    assert.equal(await projector.waitFor(later.position, 2000), true);
    assert.deepEqual(
      (await reads.listFilters(accountId)).map((f) => f.id),
      [first, second],
    );
    await projector.stop();
    await reads.close();
    await events.close();
  });

  it('hears appends made through another connection to the event store', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const other = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    // No re-check on a timer within the test's time: only the append's wake-up can bring the projector on.
    const projector = new FilterProjector(events, reads, { idleRecheckMs: 10 * 60_000 });
    await projector.start();
    const accountId = newId();
    const filterId = newId();
    const appended = await other.appendToStream(filterStream(filterId), commit(accountId, created(filterId, accountId)), 'no_stream');
    assert.equal(await projector.waitFor(appended.position, 15_000), true, "woken by the other connection's append");
    await projector.stop();
    await Promise.all([reads.close(), events.close(), other.close()]);
  });

  it('moves past events of other streams and of unknown types', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    const projector = new FilterProjector(events, reads);
    await projector.start();
    await events.appendToStream(`other-${newId()}`, [{ type: 'X', data: {}, metadata: {} }], 'no_stream');
    const appended = await events.appendToStream(filterStream(newId()), [{ type: 'FilterRenamedInTheFuture', data: {}, metadata: {} }], 'no_stream');
    assert.equal(await projector.waitFor(appended.position, 2000), true);
    assert.equal(await reads.checkpoint(FILTERS_PROJECTION), appended.position);
    await projector.stop();
    await Promise.all([reads.close(), events.close()]);
  });

  it('answers false when asked to wait for a position that never comes', async () => {
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    const projector = new FilterProjector(events, reads);
    await projector.start();
    assert.equal(await projector.waitFor(1_000_000n, 50), false);
    await projector.stop();
    await Promise.all([reads.close(), events.close()]);
  });
});
