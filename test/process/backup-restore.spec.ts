import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filtersApi, newFilter, newOwner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// An online backup is only worth its restore: back up under write load, restore into an empty
// directory, start, and find every write acknowledged before the backup began.
describe('content-filters backup <dir>, and restoring it', function () {
  this.timeout(180_000);
  const processes: NodeProcess[] = [];
  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGTERM')));
  });
  const start = (dir: string) => {
    const child = NodeProcess.start('src/main.ts', { DATA_DIR: dir, RATE_LIMITS: 'off' });
    processes.push(child);
    return child;
  };

  it('copies every store while the service writes; the restored copy has every write acknowledged before the backup began', async () => {
    const dir = scratchDir('live-');
    const owner = await newOwner(dir);
    const service = start(dir);
    const api = filtersApi(await service.url(), owner.token);
    // Mail and webmail stores exist once the service has opened them; the webmail opens its stores at start.
    const acknowledged: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let n = 0; writing; n += 1) {
        const created = await api.post('/api/v2/filters', newFilter(`w${writer}-${n}`));
        assert.equal(created.status, 200, JSON.stringify(created.body));
        acknowledged.push(created.body.id as string);
      }
    });
    while (acknowledged.length < 40) await api.get('/api/v2/filters/1');
    const beforeBackup = [...acknowledged];
    const backupDir = join(scratchDir('backup-'), 'copy');
    const backup = await runCli(['backup', backupDir], { DATA_DIR: dir });
    const duringBackup = acknowledged.length - beforeBackup.length;
    writing = false;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    const copies = ['read-models.sqlite', 'events.sqlite', 'accounts.sqlite', 'oauth.sqlite', 'idempotency.sqlite', 'webmail-sessions.sqlite', 'mail.sqlite'];
    assert.deepEqual(backup.stdout.trim().split('\n'), copies);
    assert.deepEqual(readdirSync(backupDir).sort(), [...copies].sort());
    assert.equal(statSync(backupDir).mode & 0o777, 0o700, 'the copies (password hashes, tokens) are for their owner only');
    assert.equal(await service.kill('SIGTERM'), 0);

    const restored = scratchDir('restored-');
    cpSync(backupDir, restored, { recursive: true });
    const again = start(restored);
    const url = await again.url();
    const listed = await filtersApi(url, owner.token).get('/api/v2/filters');
    assert.equal(listed.status, 200, 'the token was restored with its account');
    const ids = new Set((listed.body as { id: string }[]).map((filter) => filter.id));
    const missing = beforeBackup.filter((id) => !ids.has(id));
    assert.deepEqual(missing, [], `of ${beforeBackup.length} writes acknowledged before the backup (${duringBackup} more during it)`);
    // The restored service writes on: a position after the copied log, seen at once by reads.
    const next = await filtersApi(url, owner.token).post('/api/v2/filters', newFilter('after restore'));
    assert.equal(next.status, 200);
    const afterRestore = await filtersApi(url, owner.token).get(`/api/v2/filters/${next.body.id}`);
    assert.equal(afterRestore.status, 200);
  });

  it('refuses a directory that is not empty, and DATA_DIR itself', async () => {
    const dir = scratchDir('refuse-');
    await newOwner(dir);
    const full = scratchDir('full-');
    writeFileSync(join(full, 'something'), 'x');
    const refused = await runCli(['backup', full], { DATA_DIR: dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: backup directory .* is not empty\n$/);
    const itself = await runCli(['backup', dir], { DATA_DIR: dir });
    assert.equal(itself.code, 1);
    assert.match(itself.stderr, /must not be DATA_DIR itself/);
    mkdirSync(join(dir, 'empty'));
    assert.equal((await runCli(['backup', join(dir, 'empty')], { DATA_DIR: dir })).code, 0);
  });
});
