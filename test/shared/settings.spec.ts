import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { loadRpcConfig } from '../../src/rpc/rpc-config.ts';
import { ensureDirectory } from '../../src/shared/directories.ts';
import { BadSetting, Settings } from '../../src/shared/settings.ts';
import { loadWebmailConfig } from '../../src/webmail/webmail-config.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const bad = (variable: string, message: string) => (error: unknown) => {
  assert.ok(error instanceof BadSetting, String(error));
  assert.equal(error.variable, variable);
  assert.equal(error.message, message);
  return true;
};

describe('Settings', () => {
  it('trims values and takes an unset or empty value as the default', () => {
    const settings = new Settings({ A: '  x  ', EMPTY: '   ' });
    assert.equal(settings.text('A', 'd'), 'x');
    assert.equal(settings.text('EMPTY', 'd'), 'd');
    assert.equal(settings.text('UNSET', 'd'), 'd');
    assert.equal(settings.optional('EMPTY'), undefined);
    assert.equal(settings.path('UNSET', 'rel'), join(process.cwd(), 'rel'));
  });

  it('reads integers within their range and refuses anything else, naming the variable', () => {
    const read = (value: string) => new Settings({ N: value }).integer('N', 7, 1, 100);
    assert.equal(read('1'), 1);
    assert.equal(read('100'), 100);
    assert.equal(read('+5'), 5);
    assert.equal(new Settings({}).integer('N', 7, 1, 100), 7);
    for (const value of ['0', '101', 'abc', '1.5', '1e2', '0x10', '5 apples', '-']) {
      assert.throws(() => read(value), bad('N', `N must be an integer from 1 to 100, got ${value}`));
    }
  });

  it('reads ports from 0 to 65535', () => {
    assert.equal(new Settings({ P: '0' }).port('P', 1), 0);
    assert.equal(new Settings({ P: '65535' }).port('P', 1), 65535);
    assert.throws(() => new Settings({ P: '70000' }).port('P', 1), bad('P', 'P must be an integer from 0 to 65535, got 70000'));
    assert.throws(() => new Settings({ P: 'abc' }).port('P', 1), bad('P', 'P must be an integer from 0 to 65535, got abc'));
  });

  it('reads positive numbers, switches, choices and patterns', () => {
    assert.equal(new Settings({ X: '0.5' }).positive('X', 1), 0.5);
    for (const value of ['0', '-1', 'x', 'Infinity'])
      assert.throws(() => new Settings({ X: value }).positive('X', 1), bad('X', `X must be a positive number, got ${value}`));
    for (const value of ['on', 'TRUE', 'yes', '1']) assert.equal(new Settings({ S: value }).switch('S', false), true);
    for (const value of ['off', 'False', 'no', '0']) assert.equal(new Settings({ S: value }).switch('S', true), false);
    assert.throws(() => new Settings({ S: 'maybe' }).switch('S', true), bad('S', 'S must be on or off, got maybe'));
    assert.equal(new Settings({ C: 'b' }).oneOf('C', 'a', ['a', 'b']), 'b');
    assert.throws(() => new Settings({ C: 'c' }).oneOf('C', 'a', ['a', 'b']), bad('C', 'C must be one of a, b, got c'));
    assert.throws(() => new Settings({ M: 'x y' }).matching('M', 'd', /^\w+$/, 'a word'), bad('M', 'M must be a word, got x y'));
  });

  it('is what the API, gRPC and webmail settings are read with', () => {
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'verbose' }),
      bad('LOG_LEVEL', 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose'),
    );
    assert.throws(() => loadConfig({ PORT: 'abc' }), bad('PORT', 'PORT must be an integer from 0 to 65535, got abc'));
    assert.throws(() => loadConfig({ PROJECTOR: 'maybe' }), bad('PROJECTOR', 'PROJECTOR must be on or off, got maybe'));
    assert.throws(() => loadConfig({ NATS_STREAM: 'a.b' }), /NATS_STREAM must be a JetStream stream name/);
    assert.throws(() => loadConfig({ NATS_STREAM_STORAGE: 'disk' }), bad('NATS_STREAM_STORAGE', 'NATS_STREAM_STORAGE must be one of file, memory, got disk'));
    assert.throws(() => loadConfig({ NATS_STREAM_MAX_AGE_S: '0' }), /NATS_STREAM_MAX_AGE_S must be an integer from 1/);
    assert.throws(() => loadConfig({ NATS_STREAM_REPLICAS: '0' }), bad('NATS_STREAM_REPLICAS', 'NATS_STREAM_REPLICAS must be an integer from 1 to 5, got 0'));
    assert.throws(
      () => loadConfig({ NATS_STREAM_REPLICAS: 'three' }),
      bad('NATS_STREAM_REPLICAS', 'NATS_STREAM_REPLICAS must be an integer from 1 to 5, got three'),
    );
    assert.equal(loadConfig({ NATS_STREAM_REPLICAS: '3' }).natsStream.replicas, 3);
    assert.throws(() => loadConfig({ PROJECTOR_LEASE_MS: '5' }), bad('PROJECTOR_LEASE_MS', 'PROJECTOR_LEASE_MS must be an integer from 300 to 600000, got 5'));
    assert.throws(
      () => loadRpcConfig({ LOG_LEVEL: 'verbose' }),
      bad('LOG_LEVEL', 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose'),
    );
    assert.throws(() => loadRpcConfig({ RPC_PORT: '70000' }), bad('RPC_PORT', 'RPC_PORT must be an integer from 0 to 65535, got 70000'));
    assert.throws(
      () => loadWebmailConfig('/tmp', { WEBMAIL_IDLE_MINUTES: '0' }),
      bad('WEBMAIL_IDLE_MINUTES', 'WEBMAIL_IDLE_MINUTES must be a positive number, got 0'),
    );
    assert.throws(() => loadWebmailConfig('/tmp', { MAIL_DOMAIN: 'not a domain' }), bad('MAIL_DOMAIN', 'MAIL_DOMAIN must be a domain name, got not a domain'));
    assert.throws(() => loadWebmailConfig('/tmp', { WEBMAIL_LOGIN_RATE_LIMIT: '-1' }), /WEBMAIL_LOGIN_RATE_LIMIT must be an integer/);
    assert.equal(loadWebmailConfig('/tmp', { MAIL_DOMAIN: 'Mail.Example.ORG' }).mailDomain, 'mail.example.org');
    assert.deepEqual(loadConfig({}), {
      port: 3000,
      host: '0.0.0.0',
      dataDir: join(process.cwd(), 'data'),
      natsUrl: undefined,
      natsToken: undefined,
      natsCreds: undefined,
      natsTlsCa: undefined,
      natsStream: { name: 'CONTENT_FILTERS_TIMELINE', maxAgeMs: 7 * 24 * 3600 * 1000, storage: 'file', replicas: 1 },
      logLevel: 'info',
      eventStoreUrl: undefined,
      mongodbUrl: undefined,
      mastodonDatabaseUrl: undefined,
      projector: true,
      projectorLeaseMs: 10_000,
      projectorMaxLagMs: 5_000,
      corsOrigins: '*',
      trustProxy: 0,
      natsMatchSubject: 'filters.match',
      redisUrl: undefined,
      redisNamespace: undefined,
      rateLimits: {
        enabled: true,
        authenticatedApi: 1500,
        perTokenApi: 300,
        unauthenticatedApi: 300,
        paging: 300,
        appRegistrations: 5,
        passwordChange: 10,
        oauthSignIn: 25,
        filterMatch: 300,
      },
    });
  });
});

describe('ensureDirectory', () => {
  it('creates every missing level and accepts an existing directory', () => {
    const root = scratchDir();
    const deep = join(root, 'a', 'b', 'c');
    ensureDirectory(deep);
    ensureDirectory(deep);
    assert.ok(statSync(deep).isDirectory());
  });

  it('fails at once, naming the directory, where the kernel refuses one (recursive mkdir would spin)', function () {
    if (!statSync('/proc', { throwIfNoEntry: false })?.isDirectory()) {
      console.log('      skipped: needs Linux /proc');
      this.skip();
    }
    assert.throws(() => ensureDirectory('/proc/nope/deeper'), /cannot create directory \/proc\/nope: ENOENT/);
  });

  it('refuses a path that is a file', () => {
    const file = join(scratchDir(), 'file');
    writeFileSync(file, '');
    assert.throws(() => ensureDirectory(file), /is not a directory/);
    assert.throws(() => ensureDirectory(join(file, 'x')), /cannot create directory .*file\/x: ENOTDIR/);
  });
});
