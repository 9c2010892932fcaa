import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs npm in `cwd` to its end. */
async function npm(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ended> {
  const child = spawn('npm', args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

// The README says `npm ci && npm start`; operators pipe that stdout into a log collector that parses lines.
describe('npm start writes only JSON lines on stdout (the repository .npmrc)', function () {
  // Only ends a hang: npm, its stale-build check and a cold start can take a minute on a loaded machine.
  this.timeout(180_000);

  it('from start to SIGTERM, every stdout line is JSON, and npm’s banner goes to stderr', async () => {
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: scratchDir('npm-start-'), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', RATE_LIMITS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = once(child, 'close');
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const listening = new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (text) => {
        lines.push(text);
        if (/"event":"listening"/.test(text)) resolve((JSON.parse(text) as { url: string }).url);
      });
    });
    try {
      const url = await Promise.race([listening, exited.then(() => Promise.reject(new Error(`npm start ended:\n${lines.join('\n')}\n${stderr}`)))]);
      assert.equal((await fetch(`${url}/health/live`)).status, 200);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, stderr);
    assert.ok(lines.length >= 3, lines.join('\n'));
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    assert.deepEqual(notJson, []);
    assert.ok(
      lines.some((line) => /"event":"stopped"|"msg":"stopped"/.test(line)),
      lines.join('\n'),
    );
    assert.match(stderr, /> content-filters@\S+ start\n/, 'the banner is still there for a person, on stderr');
  });

  // The price of json mode, as docs/operations.md tells it: npm's own report of a failed script is JSON too.
  it('a failing CLI command run through npm: its error line on stderr, exit 1, and npm’s error document on stdout', async () => {
    const failed = await npm(['run', '--silent', 'cli', '--', 'account', 'show', 'nobody'], ROOT, { DATA_DIR: scratchDir('npm-cli-') });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^error: /m);
    assert.deepEqual(JSON.parse(failed.stdout), { error: { code: 1, summary: '', detail: '' } });
  });

  it('npm ci still shows its errors: a broken lockfile is refused, saying why', async () => {
    const copy = scratchDir('npm-ci-');
    for (const name of ['package.json', '.npmrc']) copyFileSync(join(ROOT, name), join(copy, name));
    writeFileSync(join(copy, 'package-lock.json'), readFileSync(join(ROOT, 'package-lock.json'), 'utf8').slice(0, 5_000));

    const ci = await npm(['ci', '--offline', '--ignore-scripts'], copy);
    assert.notEqual(ci.code, 0);
    assert.match(ci.stderr, /npm error The `npm ci` command can only install with an existing package-lock\.json/);
  });
});
