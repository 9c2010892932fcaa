import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { loadConfig, natsSettings } from '../../src/config.ts';
import { AccountMatchers } from '../../src/matching/account-matchers.ts';
import { natsConnectionOptions, type NatsSettings } from '../../src/notifications/nats-connection-options.ts';
import { natsLink } from '../../src/notifications/nats-connection.ts';
import { NatsMatchResponder } from '../../src/notifications/nats-match-responder.ts';
import { NatsNotifier } from '../../src/notifications/nats-notifier.ts';
import { newId } from '../../src/shared/ids.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { ConfiguredNatsServer, natsServerMissing, opensslMissing, operatorMode, tlsFiles } from '../support/configured-nats-server.ts';
import { TEST_STREAM } from '../support/nats-announcing.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** An account without filters: every status matches nothing, which is enough to prove a request is answered. */
const noFilters = new AccountMatchers({ filtersVersion: async () => '0', listFilters: async () => [] });

/**
 * With the service's link built from `settings`: an announcement reaches a subscriber logged in with
 * `listener`, and a filter-matching request sent by that subscriber is answered.
 */
async function announcesAndAnswers(settings: NatsSettings, listener: NatsSettings): Promise<void> {
  const accountId = newId();
  const subject = `filters.match.secured-${newId()}`;
  const watcher: NatsConnection = await connect(natsConnectionOptions(listener));
  const heard = watcher.subscribe(`timeline.${accountId}`, { max: 1 });
  await watcher.flush();
  const link = natsLink(settings, { name: 'content-filters-test' });
  const notifier = new NatsNotifier(link, TEST_STREAM);
  const responder = await NatsMatchResponder.start(settings, noFilters, undefined, subject);
  try {
    await link.firstAttempt;
    assert.equal(link.state(), 'connected');
    await notifier.announce({ accountId, messageId: newId(), position: 1n });
    for await (const message of heard) assert.equal(message.string(), '{"event":"filters_changed"}');
    const reply = await watcher.request(`${subject}.${accountId}`, JSON.stringify({ statuses: [{ id: '1', content: 'hello' }] }), { timeout: 10_000 });
    assert.deepEqual(reply.json(), { results: { '1': [] } });
  } finally {
    await responder.close();
    await notifier.close();
    await watcher.close();
  }
}

/** The service keeps serving when NATS refuses it; the refusal is logged with the reason and without a secret. */
async function refused(settings: NatsSettings, why: RegExp, secret?: string): Promise<void> {
  const log = capturedLogger();
  const { logger, lines } = log;
  const link = natsLink(settings, { name: 'content-filters-test', logger });
  try {
    await link.firstAttempt;
    assert.equal(link.state(), 'connecting');
    const line = await log.waitFor((logged) => logged.event === 'nats_unreachable');
    assert.match(JSON.stringify(line), why);
    if (secret !== undefined) assert.ok(!JSON.stringify(lines).includes(secret), 'a log line shows the secret');
  } finally {
    await link.close();
  }
}

// nats.js ignores credentials in a URL: each way of logging in is tried against a server that demands it.
describe('NATS with credentials and TLS (a real nats-server configured for each)', function () {
  this.timeout(60_000);
  const servers: ConfiguredNatsServer[] = [];
  before(function () {
    const missing = natsServerMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  const start = async (config: string, dir?: string) => {
    const server = await ConfiguredNatsServer.start(config, dir);
    servers.push(server);
    return server;
  };

  it('user and password from NATS_URL (percent-encoded) are passed as options; a wrong password is refused without showing it', async () => {
    const server = await start('authorization { user: filters, password: "p@ss:w/rd" }\n');
    const url = server.url('nats', 'filters:p%40ss%3Aw%2Frd');
    const config = loadConfig({ NATS_URL: url });
    await announcesAndAnswers(natsSettings(config)!, { url });
    await refused({ url: server.url('nats', 'filters:wrong-pass') }, /Authorization Violation/i, 'wrong-pass');
    await refused({ url: server.url() }, /Authorization Violation/i);
  });

  it('a token from NATS_TOKEN, or as nats://<token>@host', async () => {
    const server = await start('authorization { token: "s3cret-token-value" }\n');
    const config = loadConfig({ NATS_URL: server.url(), NATS_TOKEN: 's3cret-token-value' });
    await announcesAndAnswers(natsSettings(config)!, { url: server.url('nats', 's3cret-token-value') });
    await refused({ url: server.url(), token: 'not-the-token' }, /Authorization Violation/i, 'not-the-token');
  });

  it('a .creds file from NATS_CREDS against a server in operator (JWT) mode; an unreadable one stops the start', async () => {
    const dir = scratchDir('nats-creds-');
    const { config: serverConfig, credsFile } = operatorMode(dir);
    const server = await start(serverConfig, dir);
    const config = loadConfig({ NATS_URL: server.url(), NATS_CREDS: credsFile });
    await announcesAndAnswers(natsSettings(config)!, { url: server.url(), credsFile });
    await refused({ url: server.url() }, /Authorization Violation/i);
    assert.throws(
      () => natsLink({ url: server.url(), credsFile: `${dir}/missing.creds` }, { name: 'content-filters-test' }),
      /cannot read NATS_CREDS file .*missing\.creds: ENOENT/,
    );
  });

  it('TLS with the CA file from NATS_TLS_CA; without the CA the certificate is refused', async function () {
    const missing = opensslMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    const dir = scratchDir('nats-tls-');
    const { caFile, certFile, keyFile } = tlsFiles(dir);
    const server = await start(`tls { cert_file: "${certFile}", key_file: "${keyFile}" }\n`, dir);
    const config = loadConfig({ NATS_URL: server.url('tls'), NATS_TLS_CA: caFile });
    await announcesAndAnswers(natsSettings(config)!, { url: server.url(), tlsCaFile: caFile });
    await refused({ url: server.url('tls') }, /certificate/i);
  });
});
