import assert from 'node:assert/strict';
import { setTimeout as pause } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { commitsInLog, storedMessages, STREAM } from '../support/announced-commits.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NatsCluster, natsServerMissing } from '../support/nats-cluster.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

/** How long the server the service is connected to stays stopped, while changes keep coming. */
const CUT_MS = 30_000;
/** Fewer than an account may hold. */
const FILTERS_EACH = 100;

interface Health {
  announcements: { channel: string; state: string; waitingCommits: number | null }[];
}

async function natsHealth(url: string): Promise<Health['announcements'][number]> {
  const health = (await (await fetch(`${url}/health`)).json()) as Health;
  return health.announcements.find((a) => a.channel === 'nats')!;
}

describe('Announcements when the NATS server the service is connected to stops answering (three-node cluster)', function () {
  this.timeout(90_000);

  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });

  it('finds the frozen connection dead by its pings, goes on through a server the cluster announced, each commit once', async () => {
    const cluster = await NatsCluster.start();
    const dir = scratchDir();
    const { logger, lines } = capturedLogger('info');
    let service: Awaited<ReturnType<typeof startService>> | null = null;
    let cutOff: ReturnType<NatsCluster['node']> | null = null;
    try {
      // One server given: the two others are known only from the cluster's INFO (`connect_urls`).
      const given = cluster.nodes[0]!;
      const env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', NATS_URL: given.url, NATS_STREAM_REPLICAS: '3' };
      service = await startService({ config: loadConfig(env), logger });
      const url = service.url;
      const owner = await newOwner(dir);
      const api = filtersApi(url, owner.token);
      assert.equal((await api.post('/api/v2/filters', newFilter('first'))).status, 200);
      await waitUntil(async () => {
        const state = await cluster.streamCluster(STREAM);
        return state !== null && state.replicas.length === 2 && state.replicas.every((r) => r.current);
      }, 'the stream at three replicas, all current');
      await waitUntil(async () => (await natsHealth(url)).waitingCommits === 0, 'the first change announced');

      cutOff = given;
      const cutAt = Date.now();
      given.partition();
      const statesSeen = new Set<string>();
      const watching = (async () => {
        while (cutOff) {
          statesSeen.add((await natsHealth(url).catch(() => ({ state: 'no answer' }))).state);
          await pause(100); // a sampling rate, not a wait for anything
        }
      })();
      // Changes keep coming for the whole cut; announcements must catch up while the server is still stopped.
      let changes = 0;
      let writer = api;
      while (Date.now() - cutAt < CUT_MS) {
        // A fresh account now and then: an account holds a limited number of filters.
        if (changes % FILTERS_EACH === FILTERS_EACH - 1) writer = filtersApi(url, (await newOwner(dir)).token);
        assert.equal((await writer.post('/api/v2/filters', newFilter(`c${changes}`))).status, 200);
        changes += 1;
      }
      await waitUntil(async () => (await natsHealth(url)).waitingCommits === 0, 'every change announced while the server is still stopped', 30_000);
      const caughtUpMs = Date.now() - cutAt;
      const away = lines.find((l) => l.component === 'nats' && l.event === 'nats_disconnected');
      const back = lines.find((l) => l.component === 'nats' && l.event === 'nats_reconnected');
      given.heal();
      cutOff = null;
      await watching;

      const commits = await commitsInLog(dir);
      // Asked of the two others: the resumed server may still be catching up with the cluster.
      const stored = await storedMessages(
        cluster.urls.filter((u) => u !== given.url),
        commits.length,
      );
      const ids = stored.map((m) => m.messageId);
      const lastBefore = stored.filter((m) => m.storedAt < cutAt).at(-1)?.storedAt ?? cutAt;
      const firstAfter = stored.find((m) => m.storedAt >= cutAt)?.storedAt ?? Number.NaN;
      const figures = {
        changesDuringCut: changes,
        messagesInStream: stored.length,
        cutOff: given.name,
        nothingStoredForMs: Math.round(firstAfter - lastBefore),
        disconnectedAfterMs: away ? Number(away.time) - cutAt : null,
        reconnectedTo: back?.server,
        caughtUpWhileStoppedAfterMs: caughtUpMs,
        healthStatesDuringCut: [...statesSeen],
      };
      console.log(`      frozen-server figures: ${JSON.stringify(figures)}`);
      assert.ok(away, 'the frozen connection was found dead');
      assert.ok(back, 'the service reconnected');
      // nats.js tries the stopped server again first (a 5 s dial): /health must say so meanwhile.
      assert.ok(statesSeen.has('reconnecting'), `/health said ${[...statesSeen].join(', ')} during the cut`);
      assert.notEqual(back.server, `127.0.0.1:${given.port}`, 'reconnected to another server');
      assert.deepEqual(
        ids.filter((id, i) => ids.indexOf(id) !== i),
        [],
        'no commit twice in the stream',
      );
      assert.deepEqual([...ids].sort(), [...commits].sort(), 'the stream holds exactly the commits of the log');
    } finally {
      cutOff?.heal();
      cutOff = null;
      await service?.close();
      await cluster.stop();
    }
  });
});
