import assert from 'node:assert/strict';
import type { RecordedEvent } from '../../src/events/event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import type { Announcement, Notifier, PublishOutcome } from '../../src/notifications/notifier.ts';
import { announcementsIn } from '../../src/projections/announcer/announcements-in.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { filterCommit } from '../notifications/support/filter-commits.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

/** A transport that takes announcements, or refuses them while `down` is set. */
class FlakyTransport implements Notifier {
  readonly channel = 'test';
  readonly taken: Announcement[] = [];
  down = false;
  private listeners: (() => void)[] = [];

  async announce(announcement: Announcement): Promise<PublishOutcome> {
    if (this.down) throw new Error('transport away');
    this.taken.push(announcement);
    for (const listener of this.listeners.splice(0)) listener();
    return 'published';
  }

  async until(count: number): Promise<void> {
    while (this.taken.length < count) await new Promise<void>((resolve) => this.listeners.push(resolve));
  }

  async close(): Promise<void> {}
}

const recorded = (position: bigint, streamName: string, metadata: unknown, type = 'FilterCreated'): RecordedEvent => ({
  eventId: `00000000-0000-7000-8000-${position.toString().padStart(12, '0')}`,
  streamName,
  revision: 0n,
  position,
  type,
  data: { filterId: '1', accountId: 'a' },
  metadata,
  recordedAt: '2026-11-26T00:00:00.000Z',
});
const meta = (accountId: string, commitIndex: number, commitSize: number) => ({ accountId, commitIndex, commitSize, schemaVersion: 1 });

describe('Announcements in the log (pure)', () => {
  it('gives one announcement per commit of filter events, at its last event, with a message id from that event', () => {
    const given = [
      recorded(1n, filterStream('1'), meta('a', 0, 2)),
      recorded(2n, filterStream('1'), meta('a', 1, 2), 'KeywordsUpdated'),
      recorded(3n, 'worker-7', meta('a', 0, 1)),
      recorded(4n, filterStream('2'), meta('b', 0, 1), 'SomethingNewer'),
      recorded(5n, filterStream('3'), { commitIndex: 0, commitSize: 1 }),
      recorded(6n, filterStream('4'), meta('b', 0, 1)),
    ];
    assert.deepEqual(announcementsIn(given), [
      { accountId: 'a', messageId: 'filters_changed-00000000-0000-7000-8000-000000000002', position: 2n },
      { accountId: 'b', messageId: 'filters_changed-00000000-0000-7000-8000-000000000006', position: 6n },
    ]);
  });

  it('announces no commit of which an event was parked, even when the commit spans two pages', () => {
    const carry = { parked: false };
    const parked = new Set([1n]);
    assert.deepEqual(announcementsIn([recorded(1n, filterStream('1'), meta('a', 0, 2))], parked, carry), []);
    assert.deepEqual(announcementsIn([recorded(2n, filterStream('1'), meta('a', 1, 2)), recorded(3n, filterStream('2'), meta('b', 0, 1))], parked, carry), [
      { accountId: 'b', messageId: 'filters_changed-00000000-0000-7000-8000-000000000003', position: 3n },
    ]);
  });
});

describe('Announcer', () => {
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let transport: FlakyTransport;
  const running: Announcer[] = [];

  beforeEach(() => {
    const dir = scratchDir();
    events = SqliteEventStore.inDataDir(dir);
    reads = SqliteReadStore.inDataDir(dir);
    transport = new FlakyTransport();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((a) => a.stop()));
    await Promise.all([events.close(), reads.close()]);
  });

  const commitFor = async (accountId: string) => {
    const filterId = newId();
    return (await events.appendToStream(filterStream(filterId), filterCommit(accountId, filterId), 'no_stream')).position;
  };
  let failures = 0;
  const announcer = async () => {
    const observer = { published: () => {}, failed: () => void (failures += 1) };
    const made = new Announcer(events, reads, transport, { retryDelayMs: () => 5, idleRecheckMs: 5, observer });
    running.push(made);
    await made.start();
    return made;
  };

  it('announces nothing the read models have not committed yet', async () => {
    const [a, b] = [newId(), newId()];
    const first = await commitFor(a);
    await commitFor(b);
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: 0n });
    await reads.markAnnounced('test', null);
    const live = await announcer();
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: first });
    live.poke();
    await live.announced(first);
    assert.deepEqual(
      transport.taken.map((t) => t.accountId),
      [a],
    );
  });

  it('keeps its stored checkpoint behind what the transport refused, and announces it once the transport is back, in order', async () => {
    const accounts = [newId(), newId(), newId()];
    await reads.markAnnounced('test', null);
    const first = await commitFor(accounts[0]!);
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: first });
    const live = await announcer();
    await transport.until(1);
    transport.down = true;
    let last = 0n;
    for (const accountId of accounts.slice(1)) last = await commitFor(accountId);
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
    live.poke();
    failures = 0;
    await waitUntil(() => failures >= 3, 'the announcer trying and failing');
    assert.deepEqual(await reads.announced('test'), { position: first }, 'not past the first commit');
    await live.stop();
    // What a successor finds after a crash: the stored checkpoint. It announces the rest, nothing twice.
    transport.down = false;
    const successor = await announcer();
    await successor.announced(last);
    assert.deepEqual(
      transport.taken.map((t) => t.accountId),
      accounts,
    );
    assert.deepEqual(await reads.announced('test'), { position: last });
  });

  it('that never ran here starts where the read models stand, and records that at once', async () => {
    const before = await commitFor(newId());
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: before });
    const live = await announcer();
    assert.deepEqual(await reads.announced('test'), { position: before });
    const later = await commitFor(newId());
    await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: later });
    live.poke();
    await live.announced(later);
    assert.deepEqual(
      transport.taken.map((t) => t.position),
      [later],
    );
  });
});
