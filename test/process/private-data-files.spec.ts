import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCli } from '../support/run-cli.ts';

const NOBODY = { uid: 65534, gid: 65534 };
const modeOf = (path: string) => statSync(path).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;
const modes = (dir: string) => Object.fromEntries(readdirSync(dir).map((name) => [name, octal(modeOf(join(dir, name)))]));

/** Whether user nobody can read the file: a child process run as nobody tries. */
function nobodyReads(path: string): boolean {
  const read = spawnSync(process.execPath, ['-e', `require('node:fs').readFileSync(${JSON.stringify(path)})`], { ...NOBODY, stdio: 'ignore' });
  if (read.error) throw read.error;
  return read.status === 0;
}

// Another local user must read nothing of a data directory: not the sessions, not the mail, not the
// tokens' hashes. Under the usual umask (022) SQLite alone would create every file 0644.
describe('DATA_DIR and its files are their owner’s only (0700, 0600)', function () {
  this.timeout(180_000);
  const processes: NodeProcess[] = [];
  const cleanUp: string[] = [];
  let umask: number;
  before(function () {
    if (process.getuid?.() !== 0) {
      console.log('      skipped: only root can run a child as user nobody to try the files');
      this.skip();
    }
    umask = process.umask(0o022);
  });
  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGTERM')));
    if (umask !== undefined) process.umask(umask);
    for (const dir of cleanUp) rmSync(dir, { recursive: true, force: true });
  });
  /** Outside the 0700 scratch root, in a directory every user may enter, as /srv or /var/lib would be. */
  const openParent = () => {
    const parent = mkdtempSync(join(tmpdir(), 'cf-modes-'));
    cleanUp.push(parent);
    chmodSync(parent, 0o755);
    return parent;
  };
  const start = (dir: string) => {
    const child = NodeProcess.start('src/main.ts', { DATA_DIR: dir });
    processes.push(child);
    return child;
  };

  it('creates the directory 0700 and every store, -wal and -shm 0600 under umask 022; nobody reads none; exports and backups likewise', async () => {
    const parent = openParent();
    // The control: under this umask a file made without care is readable by nobody.
    writeFileSync(join(parent, 'control'), 'x');
    assert.equal(nobodyReads(join(parent, 'control')), true, 'user nobody can read a 0644 file here');
    const dir = join(parent, 'data');
    const owner = await newOwner(dir);
    const service = start(dir);
    const url = await service.url();
    assert.equal((await filtersApi(url, owner.token).post('/api/v2/filters', newFilter('private'))).status, 200);
    const files = readdirSync(dir);
    for (const store of ['events.sqlite', 'accounts.sqlite', 'webmail-sessions.sqlite', 'mail.sqlite', 'oauth.sqlite', 'idempotency.sqlite']) {
      assert.ok(files.includes(store) && files.includes(`${store}-wal`) && files.includes(`${store}-shm`), `${store} is open in WAL mode: ${files.join(' ')}`);
    }
    assert.equal(octal(modeOf(dir)), '0700');
    assert.deepEqual(
      service.lines.filter((line) => line.event === 'data-dir-tightened'),
      [],
      'created private, not tightened afterwards',
    );
    // The webmail's logs: 0750 for the group's log readers (its files 0640), behind the 0700 DATA_DIR.
    const expected = Object.fromEntries(files.map((name) => [name, name === 'logs' ? '0750' : '0600']));
    assert.deepEqual(modes(dir), expected);
    // Each file is refused by its own mode, not only by the directory's: nobody is let into the directory.
    chmodSync(dir, 0o755);
    for (const name of files) if (statSync(join(dir, name)).isFile()) assert.equal(nobodyReads(join(dir, name)), false, `nobody reads ${name}`);
    chmodSync(dir, 0o700);
    assert.equal(nobodyReads(join(dir, 'events.sqlite')), false);

    const exported = join(parent, 'export.jsonl');
    writeFileSync(exported, '', { mode: 0o644 });
    assert.equal((await runCli(['export', '--all', '--output', exported], { DATA_DIR: dir })).code, 0);
    assert.equal(octal(modeOf(exported)), '0600', 'an export over an existing 0644 file');
    const backup = join(parent, 'backup');
    const copied = await runCli(['backup', backup], { DATA_DIR: dir });
    assert.equal(copied.code, 0, copied.stderr);
    assert.equal(octal(modeOf(backup)), '0700');
    assert.deepEqual(modes(backup), Object.fromEntries(readdirSync(backup).map((name) => [name, '0600'])));
  });

  it('tightens a data directory left 0755 with 0644 files at start, and says what in one log line', async () => {
    const parent = openParent();
    const dir = join(parent, 'data');
    const accounts = SqliteAccountStore.inDataDir(dir);
    await accounts.createAccount(`loose${process.pid}`);
    await accounts.close();
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'accounts.sqlite'), 0o644);
    writeFileSync(join(dir, 'webmail-des-key'), 'a key', { mode: 0o640 });
    assert.equal(nobodyReads(join(dir, 'accounts.sqlite')), true, 'readable before the start');
    const service = start(dir);
    await service.url();
    const lines = service.lines.filter((line) => line.event === 'data-dir-tightened');
    assert.equal(lines.length, 1, 'one line');
    assert.deepEqual(lines[0]!.changed, ['data 0755->0700', 'accounts.sqlite 0644->0600', 'webmail-des-key 0640->0600']);
    assert.equal(lines[0]!.level, 40, 'a warning');
    assert.equal(octal(modeOf(dir)), '0700');
    assert.equal(octal(modeOf(join(dir, 'accounts.sqlite'))), '0600');
    assert.equal(nobodyReads(join(dir, 'accounts.sqlite')), false);
    await service.kill('SIGTERM');
    // Already tight: a second start says nothing.
    const again = start(dir);
    await again.url();
    assert.deepEqual(
      again.lines.filter((line) => line.event === 'data-dir-tightened'),
      [],
    );
  });

  it('tightens it at the start of a projector of its own too (npm run projector)', async () => {
    const dir = join(openParent(), 'data');
    await newOwner(dir);
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'accounts.sqlite'), 0o644);
    const projector = NodeProcess.start('src/projector-main.ts', { DATA_DIR: dir });
    processes.push(projector);
    await projector.url();
    assert.deepEqual(projector.lines.find((line) => line.event === 'data-dir-tightened')?.changed, ['data 0755->0700', 'accounts.sqlite 0644->0600']);
    assert.deepEqual(modes(dir)['accounts.sqlite'], '0600');
  });
});
