import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { Announcer } from '../../src/projections/announcer/announcer.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { startService } from '../../src/service.ts';
import { newId } from '../../src/shared/ids.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { byAccount, coreListener, increasing, natsNotifier, streamContents } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { subscribeDurably, type TimelineChange } from '../support/durable-timeline-subscriber.ts';
import { TestServer } from '../support/test-server.ts';
import { waitUntil } from '../support/wait-until.ts';
import { filterCommit } from './support/filter-commits.ts';

const metric = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

describe('Announcements through JetStream (a nats-server of the test)', function () {
  this.timeout(90_000);
  let nats: OwnNatsServer;

  before(async function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    nats = await OwnNatsServer.start();
  });
  after(() => nats?.stop());

  it('puts each changing request in the stream once, in log order per account, with its message id and position; core subscribers hear it too', async () => {
    const server = await TestServer.start({}, natsNotifier(nats.url));
    const core = await coreListener(nats.url);
    try {
      const [alice, bob] = [await server.account(), await server.account()];
      const form = (who: typeof alice, method: string, path: string, body?: string) =>
        server.request(method, path, { token: who.token, ...(body === undefined ? {} : { form: body }) });
      const changed = { [alice.id]: 0, [bob.id]: 0 };
      const expect = async (who: typeof alice, status: number, request: Promise<{ status: number; body: any }>, changes: number) => {
        const response = await request;
        assert.equal(response.status, status);
        changed[who.id]! += changes;
        return response.body;
      };
      const filter = await expect(alice, 200, form(alice, 'POST', '/api/v2/filters', 'title=t&context[]=home&keywords_attributes[][keyword]=a'), 1);
      const other = await expect(bob, 200, form(bob, 'POST', '/api/v2/filters', 'title=b&context[]=home'), 1);
      await expect(alice, 200, form(alice, 'PUT', `/api/v2/filters/${filter.id}`, 'title=t'), 0); // no-op
      await expect(alice, 422, form(alice, 'PUT', `/api/v2/filters/${filter.id}`, 'context[]=word'), 0);
      await expect(bob, 404, form(bob, 'DELETE', `/api/v2/filters/${filter.id}`), 0);
      await expect(alice, 200, form(alice, 'POST', `/api/v2/filters/${filter.id}/keywords`, 'keyword=k'), 1);
      await expect(alice, 200, form(alice, 'PUT', `/api/v2/filters/${filter.id}`, 'title=u'), 1);
      await expect(bob, 200, form(bob, 'DELETE', `/api/v2/filters/${other.id}`), 1);
      await server.announcementsSettled();

      const stream = await streamContents(nats.url, 5);
      const mine = stream.filter((c) => c.accountId === alice.id || c.accountId === bob.id);
      const { positions, duplicates } = byAccount(mine);
      assert.deepEqual(duplicates, []);
      assert.equal(positions.get(alice.id)?.length, changed[alice.id], 'alice: one per changing request, none for the refused and no-op ones');
      assert.equal(positions.get(bob.id)?.length, changed[bob.id]);
      assert.ok(increasing(positions.get(alice.id)!) && increasing(positions.get(bob.id)!), 'in log order');
      assert.ok(mine.every((c) => /^filters_changed-[0-9a-f-]{36}$/.test(c.messageId)));
      await core.connection.flush();
      assert.equal(core.heard.get(alice.id), changed[alice.id]);
      assert.equal(core.heard.get(bob.id), changed[bob.id]);
      const health = (await (await fetch(`${server.url}/health`)).json()) as { announcements: Record<string, unknown>[] };
      assert.deepEqual(
        health.announcements.map((a) => [a.channel, a.state, a.delivery, a.waitingCommits]),
        [['nats', 'connected', 'jetstream', 0]],
      );
      assert.ok((health.announcements[0]!.streamMessages as number) >= 5);
    } finally {
      await core.connection.close();
      await server.close();
    }
  });

  it('drops a re-publish after a crash by its message id, so each change stays in the stream once', async () => {
    const own = await OwnNatsServer.start();
    const dir = scratchDir();
    const events = SqliteEventStore.inDataDir(dir);
    const reads = SqliteReadStore.inDataDir(dir);
    const notifier = natsNotifier(own.url);
    try {
      const accountId = newId();
      let last = 0n;
      for (let i = 0; i < 5; i += 1) {
        const filterId = newId();
        last = (await events.appendToStream(filterStream(filterId), filterCommit(accountId, filterId), 'no_stream')).position;
      }
      await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
      await reads.markAnnounced('nats', null); // an announcer that ran here before any of them
      // A process that publishes everything and dies before its checkpoint is stored.
      const dying = Object.assign(Object.create(reads) as SqliteReadStore, {
        markAnnounced: async () => {
          throw new Error('killed before the checkpoint was stored');
        },
      });
      const first = new Announcer(events, dying, notifier, { retryDelayMs: () => 60_000 });
      await first.start();
      await first.announced(last);
      await first.stop();
      assert.deepEqual(await reads.announced('nats'), { position: null }, 'nothing stored: the successor starts over');

      const outcomes: string[] = [];
      const second = new Announcer(events, reads, notifier, { observer: { published: (_c, outcome) => outcomes.push(outcome), failed: () => {} } });
      await second.start();
      await second.announced(last);
      await second.stop();
      assert.deepEqual(outcomes, Array(5).fill('duplicate'), 'JetStream already had every one of them');
      assert.deepEqual(await reads.announced('nats'), { position: last });
      const stream = await streamContents(own.url, 5);
      assert.equal(stream.length, 5);
      assert.deepEqual(byAccount(stream).duplicates, []);
    } finally {
      await notifier.close();
      await Promise.all([events.close(), reads.close()]);
      await own.stop();
    }
  });

  it('lets a durable consumer resume where it stood, and a new one start at a sequence or at a time', async () => {
    const own = await OwnNatsServer.start();
    const server = await TestServer.start({}, natsNotifier(own.url));
    const heard: TimelineChange[] = [];
    try {
      const alice = await server.account();
      const post = async (title: string) => {
        assert.equal((await server.request('POST', '/api/v2/filters', { token: alice.token, form: `title=${title}&context[]=home` })).status, 200);
        await server.announcementsSettled();
      };
      await post('one');
      let subscriber = await subscribeDurably({ servers: own.url, durable: 'timeline-1', onChange: (c) => void heard.push(c) });
      await waitUntil(() => heard.length === 1, 'the first change');
      await subscriber.stop();
      const since = new Date();
      await post('two');
      await post('three');
      subscriber = await subscribeDurably({ servers: own.url, durable: 'timeline-1', onChange: (c) => void heard.push(c) });
      await waitUntil(() => heard.length === 3, 'what happened while it was away');
      await subscriber.stop();
      assert.deepEqual(
        heard.map((c) => c.sequence),
        [1, 2, 3],
        'each once, in order',
      );
      const fromSequence: TimelineChange[] = [];
      const fromTime: TimelineChange[] = [];
      const bySequence = await subscribeDurably({
        servers: own.url,
        durable: 'by-sequence',
        from: { sequence: 3 },
        onChange: (c) => void fromSequence.push(c),
      });
      const byTime = await subscribeDurably({ servers: own.url, durable: 'by-time', from: { since }, onChange: (c) => void fromTime.push(c) });
      await waitUntil(() => fromSequence.length === 1 && fromTime.length === 2, 'the consumers started later');
      await Promise.all([bySequence.stop(), byTime.stop()]);
      assert.deepEqual(
        [fromSequence.map((c) => c.messageId), fromTime.map((c) => c.messageId)],
        [[heard[2]!.messageId], [heard[1]!.messageId, heard[2]!.messageId]],
      );
    } finally {
      await server.close();
      await own.stop();
    }
  });

  it('without JetStream: publishes on core NATS, says so once in the log, in /health and in /metrics', async () => {
    const plain = await OwnNatsServer.start({ jetstream: false });
    const log = capturedLogger('info');
    const dir = scratchDir();
    const service = await startService({
      config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', NATS_URL: plain.url }),
      logger: log.logger,
    });
    const core = await coreListener(plain.url);
    try {
      const owner = await newOwner(dir);
      assert.equal((await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter('one'))).status, 200);
      assert.equal((await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter('two'))).status, 200);
      await waitUntil(() => core.heard.get(owner.accountId) === 2, 'two core announcements');
      const health = (await (await fetch(`${service.url}/health`)).json()) as { status: string; announcements: Record<string, unknown>[] };
      assert.equal(health.status, 'ok');
      assert.deepEqual([health.announcements[0]!.delivery, health.announcements[0]!.state], ['core', 'connected']);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      assert.equal(metric(metrics, 'nats_jetstream'), 0);
      assert.equal(metric(metrics, 'announcements_published_total{channel="nats"}') >= 2, true);
      assert.equal(log.lines.filter((l) => /has no JetStream/.test(String(l.msg))).length, 1);
    } finally {
      await core.connection.close();
      await service.close();
      await plain.stop();
    }
  });
});
