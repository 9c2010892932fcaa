import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectorEnvironment } from '../../src/config-help.ts';
import { loadConfig } from '../../src/config.ts';
import { loadRpcConfig } from '../../src/rpc/rpc-config.ts';
import { VERSION } from '../../src/shared/version.ts';
import { loadWebmailConfig } from '../../src/webmail/webmail-config.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** The names of the variables a settings loader reads, seen through an environment that records them. */
function variablesReadBy(load: (env: NodeJS.ProcessEnv) => unknown): string[] {
  const read = new Set<string>();
  const env = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (typeof key === 'string') read.add(key);
        return undefined;
      },
    },
  );
  load(env);
  return [...read];
}

const SERVERS = [
  { script: 'src/main.ts', reads: () => [...variablesReadBy(loadConfig), ...variablesReadBy((env) => loadWebmailConfig('/data', env))] },
  { script: 'src/projector-main.ts', reads: () => variablesReadBy((env) => loadConfig(projectorEnvironment(env))) },
  { script: 'src/rpc/main.ts', reads: () => variablesReadBy(loadRpcConfig) },
];

describe("the projector's settings", () => {
  it('--help lists only what the projector reads: no CORS, proxies, matching subject or projector switch', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'src/projector-main.ts', '--help'], {});
    for (const name of ['CORS_ORIGINS', 'TRUST_PROXY', 'NATS_MATCH_SUBJECT', 'PROJECTOR']) assert.doesNotMatch(run.stdout, new RegExp(`^  ${name} `, 'm'));
    for (const name of ['DATA_DIR', 'NATS_URL', 'REDIS_URL', 'PROJECTOR_LEASE_MS']) assert.match(run.stdout, new RegExp(`^  ${name} `, 'm'));
  });

  it('an API-only setting that is bad (TRUST_PROXY=maybe) does not stop the projector', () => {
    assert.doesNotThrow(() => loadConfig(projectorEnvironment({ TRUST_PROXY: 'maybe', CORS_ORIGINS: 'nope', DATA_DIR: '/tmp/x' })));
    assert.equal(loadConfig(projectorEnvironment({ LOG_LEVEL: 'DEBUG' })).logLevel, 'debug');
  });
});

describe('servers answer --help and --version instead of starting', function () {
  this.timeout(120_000);

  for (const { script, reads } of SERVERS) {
    it(`${script} --help lists every setting it reads, starts nothing and exits 0`, async () => {
      const dataDir = join(scratchDir('help-'), 'never-made');
      // A bad setting too: help is printed before any setting is read.
      const run = await runCommand(process.execPath, ['--import', 'tsx', script, '--help'], { DATA_DIR: dataDir, PORT: 'abc', RPC_PORT: 'abc' });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '');
      assert.match(run.stdout, /^Usage: /);
      const variables = reads();
      assert.ok(variables.length >= 6, variables.join(' '));
      for (const name of variables) assert.match(run.stdout, new RegExp(`^  ${name} `, 'm'), `${name} is not in the help of ${script}`);
      assert.doesNotMatch(run.stdout, /listening/);
      assert.equal(existsSync(dataDir), false, 'nothing was opened');
    });

    it(`${script} refuses an argument it does not know (--foo, -v) with the usage line, starts nothing and exits 2`, async () => {
      for (const argument of ['--foo', '-v', 'start']) {
        const dataDir = join(scratchDir('args-'), 'never-made');
        const run = await runCommand(process.execPath, ['--import', 'tsx', script, argument], { DATA_DIR: dataDir, PORT: '0', RPC_PORT: '0' });
        assert.equal(run.code, 2, run.stdout + run.stderr);
        assert.equal(run.stdout, '');
        assert.equal(
          run.stderr,
          `error: unknown argument '${argument}'\n${/^Usage: .*$/m.exec((await runCommand(process.execPath, ['--import', 'tsx', script, '--help'], {})).stdout)![0]}\n`,
        );
        assert.equal(existsSync(dataDir), false, 'nothing was opened');
      }
    });

    it(`${script} --version and -V print the version and exit 0`, async () => {
      const runs = await Promise.all(['--version', '-V'].map((flag) => runCommand(process.execPath, ['--import', 'tsx', script, flag], {})));
      for (const run of runs) assert.deepEqual([run.code, run.stdout, run.stderr], [0, `${VERSION}\n`, '']);
    });
  }

  it('name their version in the start-up log line', async () => {
    const dir = scratchDir('version-');
    const processes = [
      NodeProcess.start('src/main.ts', { DATA_DIR: join(dir, 'api') }),
      NodeProcess.start('src/projector-main.ts', { DATA_DIR: join(dir, 'projector') }),
      NodeProcess.start('src/rpc/main.ts', { RPC_HOST: '127.0.0.1', RPC_PORT: '0' }),
    ];
    try {
      const lines = await Promise.all(processes.map((child) => child.waitForLog((line) => /listening/.test(String(line.msg)))));
      assert.deepEqual(
        lines.map((line) => line.version),
        [VERSION, VERSION, VERSION],
      );
      // The same fields and the same event name in all three, so one query finds every start.
      for (const line of lines) {
        assert.equal(line.event, 'listening');
        assert.equal(typeof line.name, 'string');
        assert.equal(typeof line.hostname, 'string');
      }
    } finally {
      await Promise.all(processes.map((child) => child.kill('SIGTERM')));
    }
  });
});
