import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { FILTERS_CHANGED } from '../../src/notifications/notifier.ts';
import { natsNotifier } from '../support/nats-announcing.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';
import { TestServer } from '../support/test-server.ts';
import { announcementCases } from './announcement-cases.ts';

describe('filters_changed announcements on NATS', function () {
  let server: TestServer;
  let nats: OwnNatsServer;
  let subscriber: NatsConnection;
  const counts = new Map<string, number>();
  const payloads: string[] = [];

  before(async function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`    (skipped: ${missing})`);
      this.skip();
    }
    // A server of its own: the JetStream stream the service creates captures timeline.* there only.
    nats = await OwnNatsServer.start();
    server = await TestServer.start({}, natsNotifier(nats.url));
    subscriber = await connect({ servers: nats.url });
    // A callback runs as each message is parsed, so a flush that resolves later has it counted; an async
    // iterator's loop body may still be waiting for its turn in the microtask queue then.
    subscriber.subscribe('timeline.*', {
      callback: (error, message) => {
        if (error) throw error;
        const accountId = message.subject.slice('timeline.'.length);
        counts.set(accountId, (counts.get(accountId) ?? 0) + 1);
        payloads.push(message.string());
      },
    });
    await subscriber.flush();
  });
  after(async () => {
    await subscriber?.close();
    await server?.close();
    await nats?.stop();
  });

  /** Announced and confirmed by the server, then a subscriber flush: every message so far has been delivered. */
  const settle = async () => {
    await server.announcementsSettled();
    await subscriber.flush();
  };

  announcementCases(() => ({
    server,
    probe: {
      heard: async (accountId) => {
        await settle();
        return counts.get(accountId) ?? 0;
      },
    },
  }));

  it("publishes exactly Mastodon's payload", async () => {
    await settle();
    assert.ok(payloads.length > 0);
    assert.ok(payloads.every((p) => p === FILTERS_CHANGED));
  });
});
