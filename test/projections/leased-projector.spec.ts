import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { FILTERS_LEASE, LeasedProjector } from '../../src/projections/runtime/leased-projector.ts';
import { ReadYourWrites } from '../../src/projections/runtime/read-your-writes.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { newOwner, retireOwner } from '../../src/shared/process-identity.ts';
import { gate } from '../support/faulty-read-store.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { eventMetadata } from '../support/event-metadata.ts';

/** Long enough never to expire during a test: renewals and takeovers are driven by `renew()`, not by time. */
const LEASE_MS = 10 * 60_000;
/** Longer than mocha's own time-out: a wait that only its time-out ends fails the test instead of passing. */
const FOREVER_MS = 3_600_000;

function created(accountId: string, title = 't') {
  const filterId = newId();
  const metadata = eventMetadata({ accountId });
  const data = { filterId, accountId, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: new Date().toISOString() };
  return { filterId, events: [{ type: 'FilterCreated', data, metadata }] };
}

/** An owner name as a process on this host with `pid` would have written it. */
function ownerWithPid(pid: number): string {
  const mine = newOwner();
  retireOwner(mine);
  return mine.replace(/:\d+:/, `:${pid}:`);
}

describe('Leased projector', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const running: LeasedProjector[] = [];
  const connections: SqliteReadStore[] = [];
  const heard: string[] = [];

  const projector = (owner?: string, wrap: (store: ManagedReadStore) => ManagedReadStore = (store) => store) => {
    const notifier = new InProcessBus();
    const connection = SqliteReadStore.inDataDir(dir);
    connections.push(connection);
    const leased = new LeasedProjector(events, wrap(connection), notifier, {
      leaseMs: LEASE_MS,
      logger: silentLogger,
      autoRenew: false,
      ...(owner ? { owner } : {}),
    });
    notifier.subscribe((subject) => heard.push(`${owner ?? 'auto'} ${subject}`));
    running.push(leased);
    return leased;
  };

  beforeEach(() => {
    dir = scratchDir();
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
    assert.equal(first.isLeader, true, 'projecting as soon as start resolves');
    assert.equal(second.isLeader, false);
    const accountId = newId();
    const one = created(accountId);
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await second.waitFor(appended.position, 5000), true, 'a follower waits on the shared checkpoint');
    await first.announced(appended.position);
    await first.stop();
    await second.renew();
    assert.equal(second.isLeader, true);
    const two = created(accountId);
    const later = await events.appendToStream(filterStream(two.filterId), two.events, 'no_stream');
    assert.equal(await second.waitFor(later.position, 5000), true);
    await second.announced(later.position);
    assert.deepEqual(heard, [`first timeline.${accountId}`, `second timeline.${accountId}`], 'each commit announced once');
  });

  it('stops projecting when another owner holds the lease', async () => {
    const leader = projector('leader');
    await leader.start();
    assert.equal(leader.isLeader, true);
    // Another process took the lease over (as after a pause longer than the lease): the renewal fails.
    assert.equal(await reads.takeOverLease(FILTERS_LEASE, 'leader', 'intruder', LEASE_MS), true);
    await leader.renew();
    assert.equal(leader.isLeader, false);
    const one = created(newId());
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await leader.waitFor(appended.position, 200), false, 'nothing projects without the lease');
    assert.deepEqual(heard, []);
  });

  it('takes over at once the lease of a process on this host that is gone, but not of one still running', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const successor = projector();
    await reads.tryLease(FILTERS_LEASE, ownerWithPid(process.ppid), LEASE_MS);
    await successor.start();
    assert.equal(successor.isLeader, false, 'the lease of a live process is waited out');

    await reads.releaseLease(FILTERS_LEASE, (await reads.leaseHolder(FILTERS_LEASE))!.owner);
    await reads.tryLease(FILTERS_LEASE, ownerWithPid(gone), LEASE_MS);
    await successor.renew();
    assert.equal(successor.isLeader, true);
    assert.equal((await reads.leaseHolder(FILTERS_LEASE))?.owner, successor.owner);
  });

  it('takes over a lease held under its own pid by an owner that is not one of its own (a predecessor with that pid)', async () => {
    await reads.tryLease(FILTERS_LEASE, ownerWithPid(process.pid), LEASE_MS);
    const restarted = projector();
    await restarted.start();
    assert.equal(restarted.isLeader, true);
  });

  it('never takes over a lease of another host or of an owner it cannot read', async () => {
    for (const stranger of [ownerWithPid(999_999).replace(/^[^:]+/, 'other-host'), 'someone-else']) {
      await reads.tryLease(FILTERS_LEASE, stranger, LEASE_MS);
      const waiting = projector();
      await waiting.start();
      assert.equal(waiting.isLeader, false, stranger);
      await reads.releaseLease(FILTERS_LEASE, stranger);
    }
  });

  it('swaps in a pending generation after catching it up to its own position', async () => {
    const accountId = newId();
    const leader = projector('leader');
    await leader.start();
    const one = created(accountId, 'before');
    const first = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await leader.waitFor(first.position, 5000), true);
    const generation = await reads.createGeneration();
    await reads.markPending(generation);
    await leader.renew();
    await leader.renew();
    assert.equal(await reads.currentGeneration(), generation);
    assert.equal(leader.isLeader, true);
    assert.deepEqual(
      (await reads.listFilters(accountId)).map((f) => f.title),
      ['before'],
    );
    const two = created(accountId, 'after');
    const second = await events.appendToStream(filterStream(two.filterId), two.events, 'no_stream');
    assert.equal(await new ReadYourWrites(reads).waitFor(second.position, 5000), true);
    assert.deepEqual(
      (await reads.listFilters(accountId)).map((f) => f.title),
      ['before', 'after'],
    );
    assert.equal(await reads.checkpoint(FILTERS_PROJECTION), second.position);
    await leader.announced(second.position);
    assert.equal(heard.length, 2, 'the swap repeats no announcement');
  });

  it('wakes a write that waits during a swap on its own commits after the swap, never by its time-out', async () => {
    const accountId = newId();
    const swapping = gate();
    const release = gate();
    const gated = (store: ManagedReadStore): ManagedReadStore =>
      new Proxy(store, {
        get(target, property) {
          if (property === 'swapIn')
            return async (generation: number) => {
              swapping.open();
              await release.promise;
              return target.swapIn(generation);
            };
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    const leader = projector('leader', gated);
    await leader.start();
    const generation = await reads.createGeneration();
    await reads.markPending(generation);
    const renewing = leader.renew();
    await swapping.promise;
    assert.equal(leader.isLeader, false, 'the projector is stopped while the swap runs');
    const one = created(accountId, 'during the swap');
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    const waiting = leader.waitFor(appended.position, FOREVER_MS);
    release.open();
    await renewing;
    assert.equal(await waiting, true);
    assert.equal(await reads.currentGeneration(), generation);
    assert.deepEqual(
      (await reads.listFilters(accountId)).map((f) => f.title),
      ['during the swap'],
    );
  });

  it('wakes a write that waited while the lease was lost once this process projects again, never by its time-out', async () => {
    const leader = projector('leader');
    await leader.start();
    assert.equal(await reads.takeOverLease(FILTERS_LEASE, 'leader', 'intruder', LEASE_MS), true);
    await leader.renew();
    assert.equal(leader.isLeader, false);
    const accountId = newId();
    const one = created(accountId);
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    // Released before the wait starts: that commit of another connection is not what wakes it.
    await reads.releaseLease(FILTERS_LEASE, 'intruder');
    const waiting = leader.waitFor(appended.position, FOREVER_MS);
    await leader.renew();
    assert.equal(leader.isLeader, true);
    assert.equal(await waiting, true);
    assert.equal((await reads.listFilters(accountId)).length, 1);
  });
});
