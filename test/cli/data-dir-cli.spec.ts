import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const READ_ONLY_COMMANDS = [
  ['events'],
  ['filters', '--account', 'carol', '--as-of', '1'],
  ['account', 'show', 'carol'],
  ['token', 'list', 'carol'],
  ['token', 'revoke', '117661866608440641'],
  ['projections', 'rebuild'],
  ['projections', 'parked'],
];

describe('CLI and DATA_DIR', function () {
  this.timeout(60_000);
  const cleanUp: string[] = [];
  after(() => cleanUp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('refuses read-only commands when DATA_DIR does not exist, naming it, and creates nothing', async () => {
    const missing = join(scratchDir(), 'no-such-dir');
    const results = await Promise.all(READ_ONLY_COMMANDS.map((args) => runCli(args, { DATA_DIR: missing })));
    for (const [i, result] of results.entries()) {
      const args = READ_ONLY_COMMANDS[i]!;
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.equal(result.stderr, `error: DATA_DIR ${missing} does not exist: set DATA_DIR to the data directory the server uses\n`, args.join(' '));
    }
    assert.equal(existsSync(missing), false);
  });

  it('refuses them in a directory without the stores, naming the directory and the missing file, and creates no SQLite file', async () => {
    const empty = scratchDir();
    const events = await runCli(['events'], { DATA_DIR: empty });
    assert.equal(events.code, 1);
    assert.equal(events.stderr, `error: no event log in DATA_DIR ${empty} (events.sqlite is missing): set DATA_DIR to the data directory the server uses\n`);
    const show = await runCli(['account', 'show', 'carol'], { DATA_DIR: empty });
    assert.equal(show.code, 1);
    assert.equal(show.stderr, `error: no accounts in DATA_DIR ${empty} (accounts.sqlite is missing): set DATA_DIR to the data directory the server uses\n`);
    const others = await Promise.all(READ_ONLY_COMMANDS.map((args) => runCli(args, { DATA_DIR: empty })));
    assert.deepEqual(
      others.map((result) => result.code),
      READ_ONLY_COMMANDS.map(() => 1),
    );
    assert.deepEqual(readdirSync(empty), []);
  });

  it('names the file and its directory when DATA_DIR cannot be written', async function () {
    // Outside the scratch root, which only its owner may enter.
    const locked = mkdtempSync(join(tmpdir(), 'cf-locked-'));
    cleanUp.push(locked);
    chmodSync(locked, 0o555);
    // root writes anywhere: run the CLI as nobody, to whom the directory is as locked as to any user.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    // nobody must be able to run this Node and read the checkout (not so inside a 0700 scratch dir).
    const probe = spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(join(ROOT, 'src/cli/main.ts'))})`], asUser);
    if (probe.status !== 0) {
      console.log(`      skipped: user nobody cannot run ${process.execPath} on ${ROOT} (${probe.error?.message ?? `exit ${probe.status}`})`);
      this.skip();
    }
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'account', 'create', 'carol'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: locked },
        stdio: ['ignore', 'ignore', 'pipe'],
        ...asUser,
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `error: cannot open ${join(locked, 'accounts.sqlite')}: unable to open database file (is ${locked} writable by this user?)\n`);
  });

  it('ends `events | head -1` quietly: exit 0 and nothing on stderr when the reader goes away', async () => {
    const dir = scratchDir();
    mkdirSync(dir, { recursive: true });
    const store = SqliteEventStore.inDataDir(dir);
    // Far more than a pipe holds (64 KiB), so the CLI is still writing when the reader leaves.
    for (let i = 0; i < 400; i += 1) {
      const events = Array.from({ length: 10 }, (_, n) => ({ type: 'FilterCreated', data: { n, padding: 'x'.repeat(200) }, metadata: {} }));
      await store.appendToStream(`filter-${1000 + i}`, events, 'no_stream');
    }
    await store.close();

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'events'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    lines.close();
    child.stdout.destroy(); // what `head -1` does after its line
    assert.equal(JSON.parse(first).type, 'FilterCreated');
    assert.equal(await exited, 0);
    assert.equal(stderr, '');
  });
});
