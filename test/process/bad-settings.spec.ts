import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** A process that has not ended this long after starting counts as hanging (start-up alone takes seconds on a busy machine). */
const EXIT_WITHIN_MS = 60_000;

interface Ended {
  readonly code: number | null;
  readonly stdout: string[];
  readonly stderr: string;
}

/** Runs a process to its end, or kills it and fails when it does not end in time. */
async function runToEnd(script: string, env: Record<string, string>): Promise<Ended> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: scratchDir(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  assert.equal(signal, null, `${script} with ${JSON.stringify(env)} did not end within ${EXIT_WITHIN_MS} ms; it printed:\n${stdout}${stderr}`);
  return { code, stdout: stdout.split('\n').filter((line) => line !== ''), stderr };
}

/** `onlyLine`: nothing else was logged (a setting is checked before anything starts). */
function assertOneFatalLine(ended: Ended, message: RegExp, event: string, onlyLine = true): Record<string, unknown> {
  assert.equal(ended.code, 1, ended.stdout.join('\n') + ended.stderr);
  assert.equal(ended.stderr, '', 'nothing on stderr');
  const lines = ended.stdout.map((text) => JSON.parse(text) as Record<string, unknown>);
  assert.equal(lines.filter((l) => l.level === 60).length, 1, `one fatal line, got:\n${ended.stdout.join('\n')}`);
  if (onlyLine) assert.equal(lines.length, 1, `one line, got:\n${ended.stdout.join('\n')}`);
  const line = lines.at(-1)!;
  assert.equal(line.level, 60, 'fatal');
  assert.equal(line.event, event);
  assert.match(String(line.msg), message);
  return line;
}

const badSettings: [Record<string, string>, RegExp][] = [
  [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose$/],
  [{ PORT: 'abc' }, /^PORT must be an integer from 0 to 65535, got abc$/],
  [{ PORT: '70000' }, /^PORT must be an integer from 0 to 65535, got 70000$/],
  [{ PROJECTOR: 'maybe' }, /^PROJECTOR must be on or off, got maybe$/],
  [{ PROJECTOR_LEASE_MS: '10' }, /^PROJECTOR_LEASE_MS must be an integer from 300 to 600000, got 10$/],
];
const badWebmailSettings: [Record<string, string>, RegExp][] = [
  [{ WEBMAIL_IDLE_MINUTES: 'never' }, /^WEBMAIL_IDLE_MINUTES must be a positive number, got never$/],
  [{ MAIL_DOMAIN: 'not a domain' }, /^MAIL_DOMAIN must be a domain name, got not a domain$/],
];

describe('processes refuse a bad setting at once: one fatal JSON line, exit code 1', function () {
  this.timeout(EXIT_WITHIN_MS * 2);

  for (const [env, message] of [...badSettings, ...badWebmailSettings]) {
    it(`npm start with ${JSON.stringify(env)}`, async () => {
      const line = assertOneFatalLine(await runToEnd('src/main.ts', env), message, 'bad_config');
      assert.equal(line.variable, Object.keys(env)[0]);
    });
  }

  // PROJECTOR is the API process's switch for its in-process projector: the projector process does not read it.
  for (const [env, message] of badSettings.filter(([bad]) => !('PROJECTOR' in bad))) {
    it(`npm run projector with ${JSON.stringify(env)}`, async () => {
      assertOneFatalLine(await runToEnd('src/projector-main.ts', env), message, 'bad_config');
    });
  }

  it('npm run rpc with {"LOG_LEVEL":"verbose"}', async () => {
    assertOneFatalLine(await runToEnd('src/rpc/main.ts', { LOG_LEVEL: 'verbose', RPC_PORT: '0' }), /^LOG_LEVEL must be one of/, 'bad_config');
  });

  for (const script of ['src/main.ts', 'src/projector-main.ts']) {
    it(`${script} with DATA_DIR=/proc/nope (where recursive mkdir spins forever)`, async function () {
      if (!statSync('/proc', { throwIfNoEntry: false })?.isDirectory()) {
        console.log('      skipped: needs Linux /proc');
        this.skip();
      }
      const line = assertOneFatalLine(
        await runToEnd(script, { DATA_DIR: '/proc/nope' }),
        /^could not start: cannot use \/proc\/nope for SQLite files: cannot create directory \/proc\/nope: ENOENT/,
        'start_failed',
      );
      assert.equal(line.dataDir, '/proc/nope');
      // Each cause said once, in the message and in the error alike.
      const err = line.err as { message: string; causes?: string[] };
      for (const text of [String(line.msg), err.message]) assert.equal(text.split('ENOENT').length - 1, 1, text);
      assert.equal(err.causes, undefined);
    });
  }

  it('npm start on a port in use', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const port = (holder.address() as { port: number }).port;
      const line = assertOneFatalLine(await runToEnd('src/main.ts', { PORT: String(port) }), /^could not start: listen EADDRINUSE/, 'start_failed', false);
      assert.equal(line.port, port);
    } finally {
      holder.close();
    }
  });
});

describe('processes stop gracefully', function () {
  this.timeout(60_000);

  for (const script of ['src/main.ts', 'src/projector-main.ts']) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`${script} on ${signal}: shutdown and stopped lines, exit code 0`, async () => {
        const child = NodeProcess.start(script, { DATA_DIR: scratchDir() });
        await child.url();
        assert.equal(await child.kill(signal), 0);
        assert.deepEqual(
          child.lines.filter((line) => line.event === 'shutdown' || line.event === 'stopped').map((line) => [line.event, line.signal]),
          [
            ['shutdown', signal],
            ['stopped', undefined],
          ],
        );
        assert.deepEqual(
          child.lines.filter((line) => String(line.msg).startsWith('stderr:')),
          [],
        );
      });
    }
  }
});
