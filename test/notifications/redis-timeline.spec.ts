import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { loadConfig } from '../../src/config.ts';
import { FILTERS_CHANGED } from '../../src/notifications/notifier.ts';
import { startService } from '../../src/service.ts';
import { newId } from '../../src/shared/ids.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { announcementCases } from '../http/announcement-cases.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type RedisClient = ReturnType<typeof createClient>;

/** A connected client, or null when no Redis answers at `url`. */
async function reachable(url: string): Promise<RedisClient | null> {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch {
    return null;
  }
}

describe("filters_changed on Mastodon's Redis channels (REDIS_URL)", function () {
  // A namespace of its own, as Mastodon's REDIS_NAMESPACE: other runs on this Redis use theirs.
  const namespace = `cf-test-${newId()}`;
  const received: { channel: string; message: string }[] = [];
  const markers = new Map<string, () => void>();
  let publisher: RedisClient | null;
  let subscriber: RedisClient;
  let server: TestServer;

  before(async function () {
    publisher = await reachable(redisUrl);
    if (!publisher) {
      console.log(`    (skipped: no Redis at ${redisUrl}; start one or set REDIS_URL to run the Redis channel tests)`);
      this.skip();
    }
    subscriber = publisher.duplicate();
    subscriber.on('error', () => {});
    await subscriber.connect();
    await subscriber.pSubscribe(`${namespace}:*`, (message, channel) => {
      if (channel === `${namespace}:marker`) markers.get(message)?.();
      else received.push({ channel, message });
    });
    server = await TestServer.start({ REDIS_URL: redisUrl, REDIS_NAMESPACE: namespace });
  });
  after(async () => {
    await server?.close();
    await subscriber?.close();
    await publisher?.close();
  });

  /**
   * A write answers after its PUBLISH was acknowledged, and Redis delivers a subscriber's messages in
   * order: once a marker published now has arrived, every earlier message has too.
   */
  const settle = async () => {
    await server.announcementsSettled();
    const marker = newId();
    const arrived = new Promise<void>((resolve) => markers.set(marker, resolve));
    await publisher!.publish(`${namespace}:marker`, marker);
    await arrived;
    markers.delete(marker);
  };
  const heardOn = (channel: string) => received.filter((r) => r.channel === channel).length;

  announcementCases(() => ({
    server,
    probe: {
      heard: async (accountId) => {
        await settle();
        return heardOn(`${namespace}:timeline:${accountId}`);
      },
    },
  }));

  it("publishes Mastodon's payload on timeline:<id> and timeline:system:<id>, with the namespace", async () => {
    const alice = await server.account();
    await server.request('POST', '/api/v2/filters', {
      token: alice.token,
      json: { title: 't', context: ['home'], keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }] },
    });
    await settle();
    const forAlice = received.filter((r) => r.channel.endsWith(`:${alice.id}`));
    assert.deepEqual(forAlice, [
      { channel: `${namespace}:timeline:${alice.id}`, message: FILTERS_CHANGED },
      { channel: `${namespace}:timeline:system:${alice.id}`, message: FILTERS_CHANGED },
    ]);
  });

  it('with rate limits on (their counters in the same Redis), answers an unreachable Redis with a JSON 503 naming the counters', async () => {
    const dir = scratchDir();
    const env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', REDIS_URL: 'redis://127.0.0.1:1' };
    const service = await startService({ config: loadConfig(env), logger: silentLogger, env });
    try {
      const owner = await newOwner(dir);
      const response = await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter('t'));
      assert.equal(response.status, 503);
      assert.match(JSON.stringify(response.body), /rate-limit counters/);
      assert.equal((await fetch(`${service.url}/health/live`)).status, 200);
    } finally {
      await service.close();
    }
  });

  it('starts and serves while REDIS_URL names no reachable Redis, and reports it degraded (rate limits off)', async () => {
    const dir = scratchDir();
    const env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMITS: 'off' };
    const service = await startService({ config: loadConfig(env), logger: silentLogger, env });
    try {
      const owner = await newOwner(dir);
      assert.equal((await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter('t'))).status, 200);
      const response = await fetch(`${service.url}/health`);
      const body = (await response.json()) as { status: string; announcements: { channel: string; state: string; waitingCommits: number }[] };
      assert.equal(response.status, 200);
      assert.equal(body.status, 'degraded');
      assert.deepEqual(
        body.announcements.map((a) => [a.channel, a.state, a.waitingCommits]),
        [['redis', 'reconnecting', 1]],
      );
    } finally {
      await service.close();
    }
  });
});
