import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import { loadConfig, natsSettings } from '../../src/config.ts';
import { natsConnectionOptions, type NatsSettings } from '../../src/notifications/nats-connection-options.ts';
import { NatsNotifier } from '../../src/notifications/nats-notifier.ts';
import { newId } from '../../src/shared/ids.ts';
import { ConfiguredNatsServer, natsServerMissing, opensslMissing, operatorMode, tlsFiles } from '../support/configured-nats-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** The announcement a notifier built from `settings` makes reaches a subscriber logged in with `listener`. */
async function announces(settings: NatsSettings, listener: NatsSettings): Promise<void> {
  const accountId = newId();
  const watcher: NatsConnection = await connect(natsConnectionOptions(listener));
  const heard = watcher.subscribe(`timeline.${accountId}`, { max: 1 });
  await watcher.flush();
  const notifier = await NatsNotifier.connect(settings);
  try {
    await notifier.filtersChanged(accountId);
    for await (const message of heard) assert.equal(message.string(), '{"event":"filters_changed"}');
  } finally {
    await notifier.close();
    await watcher.close();
  }
}

const refused = async (settings: NatsSettings, why: RegExp) => {
  await assert.rejects(NatsNotifier.connect(settings), (error: Error) => {
    assert.match(error.message, why);
    return true;
  });
};

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
    await announces(natsSettings(config)!, { url });
    await refused({ url: server.url('nats', 'filters:wrong-pass') }, /^cannot reach NATS at nats:\/\/\*\*\*@127\.0\.0\.1:\d+: .*Authorization Violation/i);
    await refused({ url: server.url() }, /Authorization Violation/i);
  });

  it('a token from NATS_TOKEN, or as nats://<token>@host', async () => {
    const server = await start('authorization { token: "s3cret-token-value" }\n');
    const config = loadConfig({ NATS_URL: server.url(), NATS_TOKEN: 's3cret-token-value' });
    await announces(natsSettings(config)!, { url: server.url('nats', 's3cret-token-value') });
    await refused({ url: server.url(), token: 'not-the-token' }, /Authorization Violation/i);
  });

  it('a .creds file from NATS_CREDS against a server in operator (JWT) mode', async () => {
    const dir = scratchDir('nats-creds-');
    const { config: serverConfig, credsFile } = operatorMode(dir);
    const server = await start(serverConfig, dir);
    const config = loadConfig({ NATS_URL: server.url(), NATS_CREDS: credsFile });
    await announces(natsSettings(config)!, { url: server.url(), credsFile });
    await refused({ url: server.url() }, /Authorization Violation/i);
    await assert.rejects(
      NatsNotifier.connect({ url: server.url(), credsFile: `${dir}/missing.creds` }),
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
    await announces(natsSettings(config)!, { url: server.url(), tlsCaFile: caFile });
    await refused({ url: server.url('tls') }, /certificate/i);
  });
});
