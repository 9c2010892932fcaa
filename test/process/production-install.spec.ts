import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** What a checkout holds and an install makes: never copied into the scratch checkout. */
const NOT_IN_A_CHECKOUT = new Set(['node_modules', '.git', 'data', 'reports', '.stryker-tmp', 'tmp']);

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * An install takes better-sqlite3 as a prebuilt binary that prebuild-install fetches from GitHub, and
 * compiles it only when none can be fetched. This machine reaches the npm registry alone, so the test
 * offers the binary this checkout already runs where prebuild-install looks first: a local prebuild
 * (`npm_config_better_sqlite3_local_prebuilds`, prebuild-install util.js localPrebuild), named as its
 * download would be ('{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz'). That is an
 * online operator's install without the download, of the addon the rest of the suite proved on this
 * Node (CI builds Node 24's against 24.18.1's headers, see .ci/run), and no compile of minutes.
 */
function localPrebuild(): Record<string, string> {
  const addonRoot = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version: addonVersion } = JSON.parse(readFileSync(join(addonRoot, 'package.json'), 'utf8')) as { version: string };
  const stage = scratchDir('prebuild-stage-');
  mkdirSync(join(stage, 'build', 'Release'), { recursive: true });
  copyFileSync(join(addonRoot, 'build', 'Release', 'better_sqlite3.node'), join(stage, 'build', 'Release', 'better_sqlite3.node'));
  const dir = scratchDir('prebuilds-');
  const name = `better-sqlite3-v${addonVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(dir, name), '-C', stage, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

let prebuilt: Record<string, string> | undefined;

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ended> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...(prebuilt ??= localPrebuild()), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

/** Starts a server command, checks its liveness probe and a token-guarded listing, and stops it with SIGTERM. */
async function serves(command: string, args: readonly string[], cwd: string, dataDir: string, token: () => Promise<string>): Promise<void> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', RATE_LIMITS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = once(child, 'close');
  const lines: string[] = [];
  const listening = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      lines.push(text);
      if (/"event":"listening"/.test(text)) resolve((JSON.parse(text) as { url: string }).url);
    });
  });
  try {
    const url = await Promise.race([listening, exited.then(() => Promise.reject(new Error(`${command} ${args.join(' ')} ended:\n${lines.join('\n')}`)))]);
    assert.equal((await fetch(`${url}/health/live`)).status, 200);
    const listing = await fetch(`${url}/api/v2/filters`, { headers: { authorization: `Bearer ${await token()}` } });
    assert.equal(listing.status, 200);
    assert.deepEqual(await listing.json(), []);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
  }
  assert.deepEqual(await exited, [0, null], lines.join('\n'));
}

const noEngineWarning = (ended: Ended) => assert.doesNotMatch(ended.stdout + ended.stderr, /EBADENGINE/);

/**
 * Installing to run, not to develop (docs/operations.md): a checkout installed with `npm ci --omit=dev`,
 * and the packed package installed globally, each on this Node (CI: 20 and 24), each taking better-sqlite3
 * as a prebuilt binary (localPrebuild above).
 */
describe('a production install: npm ci --omit=dev, and npm pack then npm install -g', function () {
  this.timeout(1_200_000);
  const checkout = join(scratchDir('checkout-'), 'content-filters');

  before(() => {
    // A checkout with dist/ built (what the full install's `prepare` made here), without node_modules.
    cpSync(ROOT, checkout, {
      recursive: true,
      preserveTimestamps: true,
      filter: (source) => !NOT_IN_A_CHECKOUT.has(relative(ROOT, source).split('/')[0]!),
    });
  });

  it('npm ci --omit=dev installs without an engine warning, and npm start serves', async () => {
    const installed = await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], checkout);
    assert.equal(installed.code, 0, installed.stdout + installed.stderr);
    noEngineWarning(installed);
    const dataDir = scratchDir('omit-dev-data-');
    const cli = (args: string[]) => run('npm', ['run', '--silent', 'cli', '--', ...args], checkout, { DATA_DIR: dataDir });
    await serves('npm', ['start'], checkout, dataDir, async () => {
      assert.equal((await cli(['account', 'create', 'prod'])).code, 0);
      return (await cli(['token', 'create', 'prod', '--scopes', 'read:filters'])).stdout.trim();
    });
  });

  it('npm pack carries the built dist/, bin/ and proto/, and nothing of src/ or test/', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', join(checkout, '..')], checkout);
    assert.equal(packed.code, 0, packed.stderr);
    const [{ files }] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
    const paths = files.map((file) => file.path);
    for (const needed of [
      'bin/content-filters.js',
      'dist/main.js',
      'dist/projector-main.js',
      'dist/rpc/main.js',
      'dist/cli/main.js',
      'proto/test_service.proto',
    ]) {
      assert.ok(paths.includes(needed), `${needed} is packed`);
    }
    assert.ok(
      paths.some((path) => path.startsWith('dist/webmail/assets/')),
      "the webmail's assets are packed",
    );
    assert.deepEqual(
      paths.filter((path) => !/^(bin|dist|proto)\/|^(package\.json|README\.md)$/.test(path)),
      [],
    );
  });

  it('the packed package installed with npm install -g runs content-filters --help and the service', async () => {
    const prefix = scratchDir('global-');
    const installed = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(checkout, '..', `content-filters-${version}.tgz`)],
      checkout,
    );
    assert.equal(installed.code, 0, installed.stdout + installed.stderr);
    noEngineWarning(installed);

    const command = join(prefix, 'bin', 'content-filters');
    const help = await run(command, ['--help'], prefix);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage: content-filters/);
    assert.match(help.stdout, /token/);

    const dataDir = scratchDir('global-data-');
    const cli = (args: string[]) => run(command, args, prefix, { DATA_DIR: dataDir });
    const main = join(prefix, 'lib', 'node_modules', 'content-filters', 'dist', 'main.js');
    await serves(process.execPath, ['--enable-source-maps', main], prefix, dataDir, async () => {
      assert.equal((await cli(['account', 'create', 'global'])).code, 0);
      return (await cli(['token', 'create', 'global', '--scopes', 'read:filters'])).stdout.trim();
    });
  });
});
