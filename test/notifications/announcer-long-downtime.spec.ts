import assert from 'node:assert/strict';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import type { Announcement, Notifier } from '../../src/notifications/notifier.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { byAccount, natsNotifier, outOfDuplicateWindow, streamContents, TEST_STREAM } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';
import { filterCommit } from './support/filter-commits.ts';

const COMMITS = 300;
const PAGE = 64;
describe("The announcer after a downtime longer than JetStream's duplicate window (a nats-server of the test)", function () {
  this.timeout(60_000);

  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });

  it('killed in the middle of catching up and restarted after the window passed: each commit is in the stream exactly once', async () => {
    const nats = await OwnNatsServer.start();
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    // A window of 1 s instead of 2 minutes, so the test need not wait that long to pass it.
    const stream = { ...TEST_STREAM, duplicateWindowMs: 1000 };
    const notifier = natsNotifier(nats.url, undefined, stream);
    try {
      const accounts = [newId(), newId(), newId()];
      let last = 0n;
      for (let i = 0; i < COMMITS; i += 1) {
        const filterId = newId();
        last = (await events.appendToStream(filterStream(filterId), filterCommit(accounts[i % 3]!, filterId), 'no_stream')).position;
      }
      await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
      await reads.markAnnounced('nats', null);

      // The first process dies in its third page: two checkpoints stored, the third page partly published.
      const dieAfter = Math.floor(2.5 * (PAGE / 2));
      const published: Announcement[] = [];
      let dead = false;
      const dying: Notifier = {
        channel: 'nats',
        announce: async (announcement) => {
          if (dead || published.length >= dieAfter) {
            dead = true;
            throw new Error('killed');
          }
          const outcome = await notifier.announce(announcement);
          published.push(announcement);
          return outcome;
        },
        lastHeld: () => notifier.lastHeld(),
        close: async () => {},
      };
      // Killed: what it confirmed after its last stored checkpoint is never stored.
      const dyingReads = Object.assign(Object.create(reads) as SqliteReadStore, {
        markAnnounced: (channel: string, position: bigint | null) => (dead ? Promise.reject(new Error('killed')) : reads.markAnnounced(channel, position)),
      });
      const first = new Announcer(events, dyingReads, dying, { pageSize: PAGE, retryDelayMs: () => 60_000 });
      await first.start();
      await waitUntil(() => dead, 'the first announcer killed in the middle of its catching up');
      await first.stop();
      const stored = (await reads.announced('nats'))!.position!;
      const beyondCheckpoint = published.filter((a) => a.position > stored).length;
      assert.ok(beyondCheckpoint > 0 && stored < last, 'published past its stored checkpoint, with more to go');

      const newest = published.at(-1)!;
      await waitUntil(() => outOfDuplicateWindow(nats.url, `timeline.${newest.accountId}`, newest.messageId), 'the duplicate window passed');

      const outcomes = { published: 0, duplicate: 0 };
      const second = new Announcer(events, reads, notifier, {
        pageSize: PAGE,
        observer: { published: (_channel, outcome) => (outcomes[outcome] += 1), failed: () => {} },
      });
      await second.start();
      await second.announced(last);
      await second.stop();

      const contents = await streamContents(nats.url, COMMITS);
      assert.deepEqual(byAccount(contents).duplicates, [], 'no commit twice in the stream');
      assert.equal(contents.length, COMMITS, 'one message per commit');
      assert.deepEqual(outcomes, { published: COMMITS - published.length, duplicate: beyondCheckpoint }, 'what the stream held was not published again');
    } finally {
      await notifier.close();
      await Promise.all([events.close(), reads.close()]);
      await nats.stop();
    }
  });

  it("skips nothing when the stream's last message is another log's (a log started afresh, another deployment)", async () => {
    const nats = await OwnNatsServer.start();
    const notifier = natsNotifier(nats.url);
    const logs = [scratchDir(), scratchDir()].map((dir) => ({ events: SqliteEventStore.inDataDir(dir), reads: SqliteReadStore.inDataDir(dir) }));
    try {
      const announce = async ({ events, reads }: (typeof logs)[number], commits: number) => {
        const accountId = newId();
        let last = 0n;
        for (let i = 0; i < commits; i += 1) {
          const filterId = newId();
          last = (await events.appendToStream(filterStream(filterId), filterCommit(accountId, filterId), 'no_stream')).position;
        }
        await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
        await reads.markAnnounced('nats', null);
        const announcer = new Announcer(events, reads, notifier);
        await announcer.start();
        await announcer.announced(last);
        await announcer.stop();
      };
      // The older log reached further positions than the new one will: its last message is past them all.
      await announce(logs[0]!, 8);
      await announce(logs[1]!, 3);
      const contents = await streamContents(nats.url, 11);
      assert.equal(contents.length, 11, "the new log's three commits are in the stream besides the older eight");
    } finally {
      await notifier.close();
      await Promise.all(logs.flatMap(({ events, reads }) => [events.close(), reads.close()]));
      await nats.stop();
    }
  });
});
