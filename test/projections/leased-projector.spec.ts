import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { EventMetadata } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { InProcessNotifier } from '../../src/notifications/in-process-notifier.ts';
import { CheckpointCatchUp } from '../../src/projections/checkpoint-catch-up.ts';
import { FILTERS_PROJECTION } from '../../src/projections/filter-projector.ts';
import { FILTERS_LEASE, LeasedProjector } from '../../src/projections/leased-projector.ts';
import { SqliteReadStore } from '../../src/projections/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { tempDir } from '../support/temp-dir.ts';

const LEASE_MS = 300;

function created(accountId: string, title = 't') {
  const filterId = newId();
  const metadata: EventMetadata = { accountId, requestId: 'r', apiVersion: 'v2', tokenId: null, commitIndex: 0, commitSize: 1 };
  const data = { filterId, accountId, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: new Date().toISOString() };
  return { filterId, events: [{ type: 'FilterCreated', data, metadata }] };
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(10);
  }
}

describe('Leased projector', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const running: LeasedProjector[] = [];
  const connections: SqliteReadStore[] = [];
  const heard: string[] = [];

  const projector = (owner: string) => {
    const notifier = new InProcessNotifier();
    notifier.subscribe((subject) => heard.push(`${owner} ${subject}`));
    const connection = SqliteReadStore.inDataDir(dir);
    connections.push(connection);
    const leased = new LeasedProjector(events, connection, notifier, { leaseMs: LEASE_MS, logger: silentLogger, owner });
    running.push(leased);
    return leased;
  };

  beforeEach(() => {
    dir = tempDir();
    events = SqliteEventStore.inDataDir(dir);
    reads = SqliteReadStore.inDataDir(dir);
    heard.length = 0;
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    await Promise.all(connections.splice(0).map((c) => c.close()));
    await Promise.all([events.close(), reads.close()]);
  });

  it('lets one of two projectors project and announce; the other takes over when it stops', async () => {
    const first = projector('first');
    const second = projector('second');
    await first.start();
    await second.start();
    assert.equal(first.isLeader, true);
    assert.equal(second.isLeader, false);
    const accountId = newId();
    const one = created(accountId);
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await second.waitFor(appended.position, 2000), true, 'a follower waits on the shared checkpoint');
    await first.stop();
    await until(() => second.isLeader);
    const two = created(accountId);
    const later = await events.appendToStream(filterStream(two.filterId), two.events, 'no_stream');
    assert.equal(await second.waitFor(later.position, 2000), true);
    assert.deepEqual(heard, [`first timeline.${accountId}`, `second timeline.${accountId}`], 'each commit announced once');
  });

  it('stops projecting when another owner holds the lease', async () => {
    const leader = projector('leader');
    await leader.start();
    assert.equal(leader.isLeader, true);
    // Another process takes the lease over (as after a pause longer than the lease): renewals now fail.
    const raw = new Database(join(dir, 'read-models.sqlite'));
    raw.prepare('UPDATE projection_leases SET owner = ?, expires_at = ? WHERE name = ?').run('intruder', Date.now() + 60_000, FILTERS_LEASE);
    raw.close();
    await until(() => !leader.isLeader);
    const one = created(newId());
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await leader.waitFor(appended.position, 200), false, 'nothing projects without the lease');
    assert.deepEqual(heard, []);
  });

  it('swaps in a pending generation after catching it up to its own position', async () => {
    const accountId = newId();
    const leader = projector('leader');
    await leader.start();
    const one = created(accountId, 'before');
    const first = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await leader.waitFor(first.position, 2000), true);
    const generation = await reads.createGeneration();
    await reads.markPending(generation);
    await until(() => heard.length === 1);
    const deadline = Date.now() + 3000;
    while ((await reads.currentGeneration()) !== generation && Date.now() < deadline) await delay(20);
    assert.equal(await reads.currentGeneration(), generation);
    assert.deepEqual((await reads.listFilters(accountId)).map((f) => f.title), ['before']);
    const two = created(accountId, 'after');
    const second = await events.appendToStream(filterStream(two.filterId), two.events, 'no_stream');
    assert.equal(await new CheckpointCatchUp(reads).waitFor(second.position, 2000), true);
    assert.deepEqual((await reads.listFilters(accountId)).map((f) => f.title), ['before', 'after']);
    assert.equal(await reads.checkpoint(FILTERS_PROJECTION), second.position);
    assert.equal(heard.length, 2, 'the swap repeats no announcement');
  });
});
