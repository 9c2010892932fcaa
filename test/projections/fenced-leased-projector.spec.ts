import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { FILTERS_LEASE, LeasedProjector } from '../../src/projections/runtime/leased-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { mongoStandIn, standInMissing } from '../support/mongo-stand-in.ts';
import { pauseNextBulkWrite } from '../support/paused-bulk-write.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';
import { eventMetadata } from '../support/event-metadata.ts';

/** Short, so the store's clock expires a lease nobody renews during the test; waits end on the store's answer. */
const LEASE_MS = 600;
const SKEW_MS = 30_000;

function created(accountId: string) {
  const filterId = newId();
  const metadata = eventMetadata({ accountId });
  const data = { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: new Date().toISOString() };
  return { filterId, events: [{ type: 'FilterCreated', data, metadata }] };
}

describe('Leased projectors fenced on the MongoDB stand-in (mockupdb + mongomock, not a real server)', function () {
  this.timeout(60_000);
  const missing = standInMissing();
  const standIn = mongoStandIn(missing);
  let events: SqliteEventStore;
  let database: string;
  const stores: MongoReadStore[] = [];
  const running: LeasedProjector[] = [];

  /** A projector process whose own clock is `skewMs` off; renewals are driven by the test. */
  const projector = async (owner: string, skewMs: number, onFencedOff?: () => void) => {
    const reads = await MongoReadStore.connect(standIn.url(), database);
    stores.push(reads);
    const leased = new LeasedProjector(events, reads, new InProcessBus(), {
      leaseMs: LEASE_MS,
      logger: silentLogger,
      autoRenew: false,
      owner,
      now: () => Date.now() + skewMs,
      ...(onFencedOff ? { onFencedOff } : {}),
    });
    running.push(leased);
    return { leased, reads };
  };

  beforeEach(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    database = `cf_fenced_${randomUUID().slice(0, 8)}`;
    events = SqliteEventStore.inDataDir(scratchDir());
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await events?.close();
  });

  for (const [holderSkew, rivalSkew] of [
    [SKEW_MS, -SKEW_MS],
    [-SKEW_MS, SKEW_MS],
  ] as const) {
    it(`with clocks ${holderSkew / 1000} s and ${rivalSkew / 1000} s off: no live lease stolen, none kept past the store's expiry`, async () => {
      const holder = await projector(`holder-${newId()}`, holderSkew);
      const rival = await projector(`rival-${newId()}`, rivalSkew);
      await holder.leased.start();
      assert.equal(holder.leased.isLeader, true);
      // Renewed just before the rival asks: the first start (projector, announcers) can take most of a
      // 600 ms lease on a loaded machine, and an expired lease may rightly be taken.
      await holder.leased.renew();
      await rival.leased.start();
      assert.equal(rival.leased.isLeader, false, 'a live lease is not stolen, whatever the rival’s clock says');
      const held = await holder.reads.leaseHolder(FILTERS_LEASE);
      assert.equal(held?.owner, holder.leased.owner);

      // The holder stops renewing (paused); the rival asks until the store says the lease has expired.
      await waitUntil(async () => {
        await rival.leased.renew();
        return rival.leased.isLeader;
      }, 'the rival taking the lease once the store expires it');
      const taken = await rival.reads.leaseHolder(FILTERS_LEASE);
      assert.equal(taken?.owner, rival.leased.owner);
      // Granted at the store's time `expiresAt - LEASE_MS`: never before the holder's lease ran out by that clock.
      assert.ok(taken.expiresAt - LEASE_MS >= held.expiresAt, `taken at ${taken.expiresAt - LEASE_MS}, expired at ${held.expiresAt}`);
      assert.ok(taken.fence! > held.fence!);

      await holder.leased.renew();
      assert.equal(holder.leased.isLeader, false, 'the former holder does not keep the lease past its expiry');
      assert.equal((await holder.reads.leaseHolder(FILTERS_LEASE))?.owner, rival.leased.owner);
    });
  }

  it("refuses and counts a paused former holder's write, and the former holder stops projecting", async () => {
    let fenced = 0;
    const former = await projector(`former-${newId()}`, 0, () => (fenced += 1));
    const successor = await projector(`successor-${newId()}`, 0);
    await former.leased.start();
    assert.equal(former.leased.isLeader, true);

    // The former holder reads the commit's stored revisions, then pauses before writing (a GC pause, a stopped VM).
    const pause = pauseNextBulkWrite();
    const accountId = newId();
    const one = created(accountId);
    try {
      const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
      await pause.paused;
      await waitUntil(async () => {
        await successor.leased.renew();
        return successor.leased.isLeader;
      }, "the successor taking the lease once the store expires the former holder's");
      await waitUntil(async () => ((await successor.reads.checkpoint(FILTERS_PROJECTION)) ?? -1n) >= appended.position, 'the successor projecting the commit');
    } finally {
      pause.release();
      pause.restore();
    }
    await waitUntil(() => fenced > 0 && !former.leased.isLeader, "the former holder's write refused and its projector stopped");
    assert.equal(fenced, 1, 'counted once: it stopped after the refusal');
    assert.equal(successor.leased.isLeader, true);
    assert.equal((await successor.reads.getFilter(accountId, one.filterId))?.revision, 0);
  });

  it('fences a former holder still filling a pending generation: its successor swaps the generation in alone', async () => {
    let fenced = 0;
    const former = await projector(`former-${newId()}`, 0, () => (fenced += 1));
    const successor = await projector(`successor-${newId()}`, 0);
    await former.leased.start();
    const accountId = newId();
    const one = created(accountId);
    const appended = await events.appendToStream(filterStream(one.filterId), one.events, 'no_stream');
    assert.equal(await former.leased.waitFor(appended.position, 30_000), true);
    const generation = await former.reads.createGeneration();
    await former.reads.markPending(generation);

    // The former holder starts catching the pending generation up, and pauses in its first write.
    const pause = pauseNextBulkWrite();
    let renewing: Promise<void> | undefined;
    try {
      renewing = former.leased.renew();
      await pause.paused;
      await waitUntil(async () => {
        await successor.leased.renew();
        return successor.leased.isLeader;
      }, 'the successor taking the lease and swapping the generation in');
      assert.equal(await successor.reads.currentGeneration(), generation);
    } finally {
      pause.release();
      pause.restore();
    }
    await renewing;
    assert.equal(fenced, 1, `the former holder's fill was refused and counted (${fenced})`);
    assert.equal(former.leased.isLeader, false);
    assert.equal((await successor.reads.getFilter(accountId, one.filterId))?.revision, 0);
  });
});
