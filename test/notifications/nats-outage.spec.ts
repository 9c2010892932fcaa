import assert from 'node:assert/strict';
import { connect, type JsMsg, type NatsConnection } from 'nats';
import { loadConfig } from '../../src/config.ts';
import { NatsNotifier } from '../../src/notifications/nats-notifier.ts';
import { FILTERS_CHANGED, timelineSubject } from '../../src/notifications/notifier.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const metric = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

describe('NATS outages', function () {
  this.timeout(60_000);
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

  describe('in the service', () => {
    let service: RunningService;
    let archive: NatsConnection;
    let alice: Owner;
    let bob: Owner;
    const log = capturedLogger('info');
    const stream = `OUTAGE_${process.pid}`;
    // The stream keeps every announcement, so what was published while no subscriber was connected still shows.
    const archived: string[] = [];
    const heard = (subject: string) => archived.filter((s) => s === subject).length;
    let archivedMore: (() => void) | null = null;
    const untilHeard = async (subject: string, times: number) => {
      while (heard(subject) < times) await new Promise<void>((resolve) => (archivedMore = resolve));
    };

    before(async () => {
      const dir = scratchDir();
      service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', NATS_URL: nats.url }), logger: log.logger });
      [alice, bob] = await Promise.all([newOwner(dir), newOwner(dir)]);
      archive = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
      await (await archive.jetstreamManager()).streams.add({ name: stream, subjects: ['timeline.>'] });
      const consumer = await archive.jetstream().consumers.get(stream);
      const messages = await consumer.consume();
      void (async () => {
        for await (const message of messages as AsyncIterable<JsMsg>) {
          assert.equal(message.string(), FILTERS_CHANGED);
          archived.push(message.subject);
          archivedMore?.();
        }
      })();
    });
    after(async () => {
      await archive?.close();
      await service?.close();
    });

    const health = async () => {
      const report = (await (await fetch(`${service.url}/health`)).json()) as { nats: string; natsWaiting: number };
      return { nats: report.nats, natsWaiting: report.natsWaiting };
    };
    const metrics = async () => (await fetch(`${service.url}/metrics`)).text();

    it('logs the disconnect and the reconnect, shows them in /health and /metrics, and delivers what was announced meanwhile', async () => {
      assert.equal((await filtersApi(service.url, alice.token).post('/api/v2/filters', newFilter('before'))).status, 200);
      await untilHeard(timelineSubject(alice.accountId), 1);
      assert.deepEqual(await health(), { nats: 'connected', natsWaiting: 0 });
      assert.equal(metric(await metrics(), 'nats_connected'), 1);

      await nats.stop();
      const down = await log.waitFor((line) => /NATS disconnected/.test(String(line.msg)));
      assert.equal(down.level, 40);
      assert.deepEqual(await health(), { nats: 'reconnecting', natsWaiting: 0 });

      const during = await filtersApi(service.url, bob.token).post('/api/v2/filters', newFilter('during'));
      assert.equal(during.status, 200, 'the API keeps answering while NATS is away');
      assert.deepEqual(await health(), { nats: 'reconnecting', natsWaiting: 1 });
      const away = await metrics();
      assert.equal(metric(away, 'nats_connected'), 0);
      assert.equal(metric(away, 'nats_announcements_waiting'), 1);
      assert.ok(metric(away, 'nats_announcements_delayed_total') >= 1);

      await nats.resume();
      const up = await log.waitFor((line) => /NATS reconnected/.test(String(line.msg)));
      assert.equal(up.delayed, 1);
      await untilHeard(timelineSubject(bob.accountId), 1);
      assert.deepEqual(await health(), { nats: 'connected', natsWaiting: 0 });
      assert.equal(metric(await metrics(), 'nats_connected'), 1);
    });
  });

  it('counts and logs what still waits when the notifier closes during an outage', async () => {
    const log = capturedLogger('info');
    let lost = 0;
    let delayed = 0;
    const notifier = await NatsNotifier.connect(nats.url, { logger: log.logger, onLost: (n) => (lost += n), onDelayed: (n) => (delayed += n) });
    await nats.stop();
    try {
      await log.waitFor((line) => /NATS disconnected/.test(String(line.msg)));
      await notifier.filtersChanged('1');
      await notifier.filtersChanged('1');
      await notifier.filtersChanged('2');
      assert.deepEqual([notifier.state(), notifier.waiting()], ['reconnecting', 2]);
      await notifier.close();
      assert.deepEqual([delayed, lost], [3, 2]);
      const line = await log.waitFor((l) => /announcements are lost/.test(String(l.msg)));
      assert.deepEqual([line.level, line.lost], [50, 2]);
    } finally {
      await nats.resume();
    }
  });
});
