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

const isJson = (line: string): boolean => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

// The README says `npm ci && npm start`; operators pipe that stdout into a log collector that parses lines.
// No npm setting moves a script's banner off stdout for one command alone (docs/operations.md), so npm's
// banner comes first, alone, and every line after it is the service's JSON.
describe('npm start: npm’s banner, then only JSON lines on stdout; npm in its default (human) mode', function () {
  // Only ends a hang: npm, its stale-build check and a cold start can take a minute on a loaded machine.
  this.timeout(180_000);

  it('from start to SIGTERM: the four lines of one npm banner, then every stdout line is JSON', async () => {
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
    assert.ok(lines.length >= 7, lines.join('\n'));
    // The stale-build check runs inside the start script, so there is no prestart banner before this one.
    assert.equal(lines[0], '');
    assert.match(lines[1]!, /^> content-filters@\S+ start$/);
    assert.match(lines[2]!, /^> node scripts\/build\.js --if-stale && exec node --enable-source-maps dist\/main\.js$/);
    assert.equal(lines[3], '');
    assert.deepEqual(
      lines.slice(4).filter((line) => !isJson(line)),
      [],
    );
    assert.ok(
      lines.some((line) => /"event":"stopped"|"msg":"stopped"/.test(line)),
      lines.join('\n'),
    );
  });

  it('npm is in its default mode here: no json setting, so an install reports in prose', async () => {
    const json = await npm(['config', 'get', 'json'], ROOT);
    assert.equal(json.stdout.trim(), 'false');
  });

  it('a failing CLI command run through npm --silent: its error line on stderr, exit 1, and nothing on stdout', async () => {
    const failed = await npm(['run', '--silent', 'cli', '--', 'account', 'show', 'nobody'], ROOT, { DATA_DIR: scratchDir('npm-cli-') });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^error: /m);
    assert.equal(failed.stdout, '');
  });

  it('npm ci still shows its errors: a broken lockfile is refused, saying why', async () => {
    const copy = scratchDir('npm-ci-');
    copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    writeFileSync(join(copy, 'package-lock.json'), readFileSync(join(ROOT, 'package-lock.json'), 'utf8').slice(0, 5_000));

    const ci = await npm(['ci', '--offline', '--ignore-scripts'], copy);
    assert.notEqual(ci.code, 0);
    assert.match(ci.stderr, /npm error The `npm ci` command can only install with an existing package-lock\.json/);
  });
});
