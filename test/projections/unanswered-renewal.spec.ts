import assert from 'node:assert/strict';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { LeasedProjector } from '../../src/projections/runtime/leased-projector.ts';
import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { InProcessBus } from '../support/in-process-bus.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

/** Short: the test waits for the lease to run out while its renewal hangs. */
const LEASE_MS = 600;

/**
 * A store cut off by the network answers a renewal neither yes nor no until TCP gives up, minutes later.
 * The holder must not go on projecting, nor say it leads, past the lease it can no longer vouch for.
 */
describe('Leased projector whose renewal goes unanswered', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let leased: LeasedProjector;
  let hanging = false;
  const held: (() => void)[] = [];

  /** The store, except that while `hanging` each `tryLease` waits until the test lets it through. */
  const cutOff = (store: ManagedReadStore): ManagedReadStore =>
    new Proxy(store, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (name !== 'tryLease' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (hanging) await new Promise<void>((resolve) => held.push(resolve));
          return (value as (...a: unknown[]) => Promise<boolean>).apply(target, args);
        };
      },
    });

  beforeEach(() => {
    const dir = scratchDir();
    events = SqliteEventStore.inDataDir(dir);
    reads = SqliteReadStore.inDataDir(dir);
    leased = new LeasedProjector(events, cutOff(reads), new InProcessBus(), { leaseMs: LEASE_MS, logger: silentLogger });
  });

  afterEach(async () => {
    hanging = false;
    held.splice(0).forEach((release) => release());
    await leased.stop();
    await Promise.all([events.close(), reads.close()]);
  });

  it('stops projecting and leading once the lease may have run out, and leads again when the renewal is answered', async () => {
    await leased.start();
    assert.equal(leased.isLeader, true);
    hanging = true;
    await waitUntil(() => held.length > 0, 'a renewal left hanging');
    await waitUntil(() => !leased.isLeader, 'the holder giving up while its renewal hangs');
    assert.equal(held.length, 1, 'the renewal is still unanswered: no second one was sent meanwhile');

    hanging = false;
    held.splice(0).forEach((release) => release());
    await waitUntil(() => leased.isLeader, 'the holder projecting again once the store grants the renewal');
  });
});
