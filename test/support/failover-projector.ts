import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { checkReadModels } from '../../src/projections/admin/read-model-check.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { LeasedProjector } from '../../src/projections/runtime/leased-projector.ts';
import { DEFAULT_POLICY } from '../../src/projections/runtime/runner-policy.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import { mongoUrlWithConcerns } from '../../src/shared/mongo-concerns.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { InProcessBus } from './in-process-bus.ts';
import { adminCommand, failCommandOff, stopReplication, type MongoStandIn } from './mongo-stand-in.ts';
import { scratchDir } from './scratch-dir.ts';
import { eventMetadata } from './event-metadata.ts';

export const SOCKET_TIMEOUT_MS = 1_000;
/** Fast retries: a failure wrongly counted as a fault parks its commit within a second. */
const POLICY = { ...DEFAULT_POLICY, retryDelayMs: () => 20 };

function changes(count: number) {
  return Array.from({ length: count }, () => {
    const accountId = newId();
    const filterId = newId();
    const metadata = eventMetadata({ accountId });
    const data = { filterId, accountId, title: 't', context: ['home'], action: 'warn', expiresAt: null, createdAt: new Date().toISOString() };
    return { accountId, filterId, events: [{ type: 'FilterCreated', data, metadata }] };
  });
}

export interface FailoverProjector {
  /** The projector leading on the set with the production concerns; `query` adds options to the URL. */
  start(query?: string): Promise<void>;
  /** Appends `count` one-event commits; the last one's position. */
  append(count: number): Promise<bigint>;
  /** Every commit projected and stored, none parked, the read models equal to a replay of the log. */
  assertWhole(upTo: bigint): Promise<void>;
  reads(): MongoReadStore;
  projector(): LeasedProjector;
  database(): string;
}

/**
 * Registers hooks for a suite that runs one leased projector on the stand-in's replica set (primary,
 * secondary, arbiter; mockupdb + mongomock, not a server) with a socketTimeoutMS, and leaves the set
 * healthy after each test: replication on, no fail point.
 */
export function failoverProjector(standIn: MongoStandIn, missing: string | null): FailoverProjector {
  let events: SqliteEventStore;
  let reads: MongoReadStore | undefined;
  let projector: LeasedProjector | undefined;
  let database = '';

  beforeEach(function () {
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    events = SqliteEventStore.inDataDir(scratchDir());
  });

  afterEach(async () => {
    if (missing) return;
    await stopReplication(standIn.url(), false);
    for (const member of standIn.memberUrls())
      await Promise.all([failCommandOff(member), adminCommand(member, { configureFailPoint: 'hangBeforeWaitingForWriteConcern', mode: 'off' })]);
    await projector?.stop();
    await reads?.close();
    await events?.close();
    projector = reads = undefined;
  });

  return {
    async start(query = '') {
      const url = mongoUrlWithConcerns(standIn.replicaSetUrl(`&heartbeatFrequencyMS=500&socketTimeoutMS=${SOCKET_TIMEOUT_MS}${query}`), 'majority');
      database = `cf_failover_${randomUUID().slice(0, 8)}`;
      reads = await MongoReadStore.connect(url, database);
      projector = new LeasedProjector(events, reads, new InProcessBus(), { leaseMs: 3_000, logger: silentLogger, policy: POLICY, owner: `p-${newId()}` });
      await projector.start();
      assert.equal(projector.isLeader, true);
    },
    async append(count) {
      let last = 0n;
      for (const change of changes(count)) last = (await events.appendToStream(filterStream(change.filterId), change.events, 'no_stream')).position;
      return last;
    },
    async assertWhole(upTo) {
      assert.equal(await projector!.waitFor(upTo, 45_000), true, 'every commit projected');
      // As the store holds it now, not as the projector remembers it: an acknowledged batch stays.
      assert.ok(((await reads!.checkpoint(FILTERS_PROJECTION)) ?? 0n) >= upTo, 'the stored checkpoint holds every commit');
      assert.deepEqual(await reads!.parkedEvents(FILTERS_PROJECTION), [], 'no commit parked');
      const drifts: unknown[] = [];
      const report = await checkReadModels(events, reads!, { onDrift: (drift) => void drifts.push(drift) });
      assert.equal(report.differences, 0, JSON.stringify(drifts));
      assert.ok(report.filters > 0);
    },
    reads: () => reads!,
    projector: () => projector!,
    database: () => database,
  };
}
