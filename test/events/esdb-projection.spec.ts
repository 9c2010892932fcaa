import assert from 'node:assert/strict';
import { binaryEvent } from '@eventstore/db-client';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { EventStoreUnavailableError } from '../../src/events/event-store.ts';
import { unpackPosition } from '../../src/events/esdb-position.ts';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import type { Announcement, Notifier, PublishOutcome } from '../../src/notifications/notifier.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION, FilterProjector } from '../../src/projections/runtime/filter-projector.ts';
import { DEFAULT_POLICY } from '../../src/projections/runtime/projection-runner.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { EsdbStandIn } from '../support/esdb-stand-in.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const now = '2026-11-22T10:00:00.000Z';

function createCommit(accountId: string, filterId = newId()) {
  const events: FilterEvent[] = [
    { type: 'FilterCreated', data: { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: now } },
    {
      type: 'KeywordsUpdated',
      data: { filterId, removed: [], changed: [], added: [{ id: newId(), keyword: 'k', wholeWord: true }], replacesAll: false, updatedAt: now },
    },
  ];
  return {
    stream: filterStream(filterId),
    events: events.map((e, i) => {
      const metadata = eventMetadata({ accountId, commitIndex: i, commitSize: events.length, schemaVersion: FILTER_EVENT_VERSIONS[e.type] });
      return { type: e.type, data: e.data, metadata };
    }),
  };
}

// The projector on the EventStoreDB adapter against the gRPC protocol STAND-IN (test/support/esdb-stand-in.ts), not a server.
describe('the projector on the EventStoreDB adapter, against the protocol stand-in (not a server)', function () {
  this.timeout(60_000);
  let standIn: EsdbStandIn;
  const closers: Array<() => Promise<void>> = [];
  const open = () => {
    const events = EsdbEventStore.connect(standIn.url);
    closers.push(() => events.close());
    return events;
  };
  const readStore = (dir = scratchDir()) => {
    const reads = SqliteReadStore.inDataDir(dir);
    closers.push(() => reads.close());
    return reads;
  };
  /** Puts an older checkpoint in place, as a data directory from before an upgrade holds (the store only moves it forwards). */
  const storeCheckpoint = (dir: string, position: bigint) => {
    const db = new Database(join(dir, 'read-models.sqlite'));
    db.prepare('UPDATE checkpoints SET position = ? WHERE projection = ?').run(position.toString(), FILTERS_PROJECTION);
    db.close();
  };
  beforeEach(async () => {
    standIn = await EsdbStandIn.start({ systemProjections: true });
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await standIn.stop();
  });

  it("moves its checkpoint over other streams' events, so neither it nor /health reads them again", async () => {
    const events = open();
    const reads = readStore();
    const projector = new FilterProjector(events, reads, { idleRecheckMs: 20 });
    closers.push(() => projector.stop());
    const { stream, events: commit } = createCommit(newId());
    const appended = await events.appendToStream(stream, commit, 'no_stream');
    await projector.start();
    assert.equal(await projector.waitFor(appended.position, 10_000), true);
    standIn.otherApplication(3000);
    const end = () => BigInt(standIn.log.events.at(-1)!.prepare);
    await waitUntil(async () => {
      const checkpoint = await reads.checkpoint(FILTERS_PROJECTION);
      return checkpoint !== null && unpackPosition(checkpoint).commit >= end();
    }, 'the checkpoint to pass the foreign events');

    // Another process (a fresh adapter, no memory of earlier reads) reading on from the checkpoint, as /health does.
    const sentBefore = standIn.recordsSent;
    const fresh = open();
    const next = await fresh.readAll({ after: await reads.checkpoint(FILTERS_PROJECTION), limit: 1 });
    assert.equal(next.length, 0);
    assert.ok(standIn.recordsSent - sentBefore < 10, `read ${standIn.recordsSent - sentBefore} records again`);
  });

  it("moves the announcer's checkpoint over other streams' events too, never past the read models", async () => {
    const events = open();
    const reads = readStore();
    const projector = new FilterProjector(events, reads, { idleRecheckMs: 20 });
    closers.push(() => projector.stop());
    const heard: Announcement[] = [];
    const transport: Notifier = {
      channel: 'scan-test',
      announce: async (announcement): Promise<PublishOutcome> => {
        heard.push(announcement);
        return 'published';
      },
      close: async () => {},
    };
    const announcer = new Announcer(events, reads, transport, { idleRecheckMs: 20 });
    closers.push(() => announcer.stop());
    const { stream, events: commit } = createCommit(newId());
    const appended = await events.appendToStream(stream, commit, 'no_stream');
    await projector.start();
    await announcer.start();
    await waitUntil(async () => heard.length === 1, 'the commit to be announced');
    standIn.otherApplication(3000);
    const end = () => BigInt(standIn.log.events.at(-1)!.prepare);
    await waitUntil(async () => {
      const stored = (await reads.announced('scan-test'))?.position ?? null;
      return stored !== null && unpackPosition(stored).commit >= end();
    }, "the announcer's checkpoint to pass the foreign events");
    const stored = (await reads.announced('scan-test'))!.position!;
    assert.ok(stored > appended.position);
    assert.ok(stored <= (await reads.checkpoint(FILTERS_PROJECTION))!);
    assert.equal(heard.length, 1);
  });

  it('reads a scanned stretch of $all once: the next read after the same event starts where the last one ended', async () => {
    const events = open();
    const { stream, events: commit } = createCommit(newId());
    const appended = await events.appendToStream(stream, commit, 'no_stream');
    standIn.otherApplication(2000);
    const first = await events.readAll({ after: appended.position, limit: 10 });
    assert.equal(first.length, 0);
    assert.ok(first.scannedTo !== undefined && first.scannedTo > appended.position);
    const sentBefore = standIn.recordsSent;
    for (let i = 0; i < 5; i += 1) assert.equal((await events.readAll({ after: appended.position, limit: 10 })).length, 0);
    assert.ok(standIn.recordsSent - sentBefore < 10, `read ${standIn.recordsSent - sentBefore} records again`);
    const later = createCommit(newId());
    const again = await events.appendToStream(later.stream, later.events, 'no_stream');
    const found = await events.readAll({ after: appended.position, limit: 10 });
    assert.deepEqual(
      found.map((e) => e.position),
      (await events.readStream(later.stream)).map((e) => e.position),
    );
    assert.equal(found.at(-1)!.position, again.position);
  });

  it('cancels a read of $all its caller stopped waiting for, so timed-out reads do not pile up on the server', async () => {
    const events = open();
    standIn.otherApplication(20_000);
    const controller = new AbortController();
    const reading = events.readAll({ after: null, limit: 10, signal: controller.signal });
    await waitUntil(() => standIn.recordsSent > 0, 'the read to reach the stand-in');
    controller.abort();
    await assert.rejects(reading, EventStoreUnavailableError);
    await waitUntil(() => standIn.openReads.size === 0, 'the stand-in to stop serving the read');
    assert.ok(standIn.recordsSent < standIn.log.events.length / 2, `sent ${standIn.recordsSent} of ${standIn.log.events.length} records`);
  });

  it('resumes a commit-only checkpoint C at (C, C), reading nothing again', async () => {
    const events = open();
    const dir = scratchDir();
    const reads = readStore(dir);
    let last = 0n;
    for (let i = 0; i < 50; i += 1) {
      const { stream, events: commit } = createCommit(newId());
      last = (await events.appendToStream(stream, commit, 'no_stream')).position;
    }
    const projector = new FilterProjector(events, reads, { idleRecheckMs: 20 });
    await projector.start();
    assert.equal(await projector.waitFor(last, 20_000), true);
    await projector.stop();
    // What a release that kept commit positions alone stored: the last event's commit position.
    await reads.close();
    storeCheckpoint(dir, unpackPosition(last).commit);
    const upgradedReads = readStore(dir);

    const sentBefore = standIn.recordsSent;
    const upgraded = new FilterProjector(events, upgradedReads, { idleRecheckMs: 20 });
    closers.push(() => upgraded.stop());
    await upgraded.start();
    const { stream, events: commit } = createCommit(newId());
    const next = await events.appendToStream(stream, commit, 'no_stream');
    assert.equal(await upgraded.waitFor(next.position, 10_000), true);
    assert.equal((await upgradedReads.checkpoint(FILTERS_PROJECTION))! >= next.position, true);
    assert.ok(standIn.recordsSent - sentBefore < 20, `read ${standIn.recordsSent - sentBefore} records again`);
  });

  it('parks an event that is not JSON and projects the commits after it', async () => {
    const events = open();
    const reads = readStore();
    const accountId = newId();
    const { stream, events: commit } = createCommit(accountId);
    await events.appendToStream(stream, commit, 'no_stream');
    // Another writer's event in one of this project's streams, whose bytes are not JSON.
    await events.client.appendToStream(stream, binaryEvent({ type: 'KeywordsUpdated', data: Buffer.from('\u0000not json') }));
    const later = createCommit(accountId);
    const after = await events.appendToStream(later.stream, later.events, 'no_stream');
    const policy = { ...DEFAULT_POLICY, retryDelayMs: () => 1 };
    const projector = new FilterProjector(events, reads, { idleRecheckMs: 20, policy });
    closers.push(() => projector.stop());
    await projector.start();
    assert.equal(await projector.waitFor(after.position, 20_000), true, 'the commit after the bad event is projected');
    const parked = await reads.parkedEvents(FILTERS_PROJECTION);
    assert.equal(parked.length, 1);
    assert.equal(parked[0]!.streamName, stream);
    assert.match(parked[0]!.error, /cannot be decoded/);
    assert.equal((await reads.listFilters(accountId)).length, 2);
  });
});
