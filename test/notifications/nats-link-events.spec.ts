import assert from 'node:assert/strict';
import { natsLink } from '../../src/notifications/nats-connection.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { natsServerMissing, OwnNatsServer } from '../support/nats-server.ts';

// Operators filter logs by `event`: every NATS lifecycle line of the link carries one.
describe('the NATS link logs its lifecycle with an event field', function () {
  this.timeout(60_000);
  let server: OwnNatsServer | undefined;
  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });
  after(() => server?.stop());

  it('nats_unreachable at start, nats_connected once reached, nats_disconnected and nats_reconnected around an outage', async () => {
    server = await OwnNatsServer.start({ jetstream: false });
    await server.stop();
    const log = capturedLogger();
    const link = natsLink(server.url, { name: 'content-filters-test', logger: log.logger, reconnectTimeWaitMs: 50 });
    try {
      await link.firstAttempt;
      const unreachable = await log.waitFor((line) => line.event === 'nats_unreachable');
      assert.equal(unreachable.url, server.url);
      await server.resume();
      await log.waitFor((line) => line.event === 'nats_connected');
      assert.equal(link.state(), 'connected');
      await server.stop();
      await log.waitFor((line) => line.event === 'nats_disconnected');
      await server.resume();
      await log.waitFor((line) => line.event === 'nats_reconnected');
      assert.equal(link.state(), 'connected');
    } finally {
      await link.close();
    }
  });
});
