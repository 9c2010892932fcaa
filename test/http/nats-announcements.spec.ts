import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { NatsNotifier } from '../../src/notifications/nats-notifier.ts';
import { FILTERS_CHANGED } from '../../src/notifications/notifier.ts';
import { TestServer } from '../support/test-server.ts';
import { announcementCases } from './announcement-cases.ts';

const natsUrl = process.env.NATS_URL;

describe('filters_changed announcements on NATS', function () {
  let server: TestServer;
  let publisher: NatsConnection;
  let subscriber: NatsConnection;
  const counts = new Map<string, number>();
  const payloads: string[] = [];

  before(async function () {
    if (!natsUrl) {
      console.log('    (skipped: set NATS_URL, e.g. nats://127.0.0.1:4222, to run the NATS announcement tests)');
      this.skip();
    }
    // The service publishes over this connection, so the test can flush it.
    publisher = await connect({ servers: natsUrl, name: 'content-filters' });
    server = await TestServer.start({}, new NatsNotifier(publisher));
    subscriber = await connect({ servers: natsUrl });
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
  });

  /** Publisher flush, then subscriber flush: every message published so far has been delivered. */
  const settle = async () => {
    await publisher.flush();
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
