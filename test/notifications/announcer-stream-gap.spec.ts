import assert from 'node:assert/strict';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import type { Notifier, PublishOutcome } from '../../src/notifications/notifier.ts';
import { announcementsIn } from '../../src/projections/announcer/announcements-in.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { byAccount, natsNotifier, outOfDuplicateWindow, streamContents, TEST_STREAM } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';
import { filterCommit } from './support/filter-commits.ts';

const COMMITS = 40;
const FAILING = 17;

/**
 * What the three-node cluster did to 11 of 1,063 commits, made to happen at once: a publish fails (its
 * stream leader is lost) while the next commit's publish, already on its way, is stored. Only the
 * announcer's rule is under test, so one nats-server of the test holds the stream.
 */
describe('The announcer when a publish failed and a later one was stored (a nats-server of the test)', function () {
  this.timeout(60_000);

  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });

  it("publishes the commit missing below the stream's last message, and only the missing ones", async () => {
    const nats = await OwnNatsServer.start();
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    // A duplicate window of 1 s, waited out before the retry: what the stream holds must be skipped by
    // the announcer's own rule, not by JetStream dropping a second copy.
    const notifier = natsNotifier(nats.url, undefined, { ...TEST_STREAM, duplicateWindowMs: 1000 });
    try {
      const accounts = [newId(), newId(), newId()];
      const positions: bigint[] = [];
      for (let i = 0; i < COMMITS; i += 1) {
        const filterId = newId();
        positions.push((await events.appendToStream(filterStream(filterId), filterCommit(accounts[i % 3]!, filterId), 'no_stream')).position);
      }
      await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: positions.at(-1)! });
      await reads.markAnnounced('nats', null);

      let failed = false;
      let storedAhead: PublishOutcome | null = null;
      const failingOnce: Notifier = {
        channel: 'nats',
        announce: async (announcement) => {
          if (announcement.position !== positions[FAILING] || failed) return notifier.announce(announcement);
          failed = true;
          // The next commit's publish lands while this one is lost: its announcement as the announcer makes it.
          const [following] = announcementsIn(await events.readAll({ after: positions[FAILING], limit: 2 }));
          assert.equal(following?.position, positions[FAILING + 1]);
          storedAhead = await notifier.announce(following!);
          const subject = `timeline.${following!.accountId}`;
          await waitUntil(() => outOfDuplicateWindow(nats.url, subject, following!.messageId), 'the duplicate window passed');
          throw new Error('publish lost with its stream leader');
        },
        lastHeld: () => notifier.lastHeld(),
        heldAfter: (position, limit) => notifier.heldAfter(position, limit),
        close: async () => {},
      };
      const outcomes = { published: 0, duplicate: 0 };
      const announcer = new Announcer(events, reads, failingOnce, {
        retryDelayMs: () => 10,
        observer: { published: (_channel, outcome) => (outcomes[outcome] += 1), failed: () => {} },
      });
      await announcer.start();
      await announcer.announced(positions.at(-1)!);
      await announcer.stop();

      assert.equal(storedAhead, 'published', 'the later commit went in before the earlier one');
      const contents = await streamContents(nats.url, COMMITS - 1);
      assert.deepEqual(byAccount(contents).duplicates, [], 'no commit twice in the stream');
      assert.deepEqual(
        contents.map((c) => c.position).sort((a, b) => (a < b ? -1 : 1)),
        positions,
        'every commit in the stream, the failed one too',
      );
      assert.deepEqual(outcomes, { published: COMMITS - 1, duplicate: 1 }, 'the one stored ahead was not published again');
    } finally {
      await notifier.close();
      await Promise.all([events.close(), reads.close()]);
      await nats.stop();
    }
  });
});
