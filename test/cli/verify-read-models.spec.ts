import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const SUMMARY =
  /^verified \d+ events; head \d+:[0-9a-f]{64}\nread models match the log: 2 accounts, (\d+) filters checked against the log up to position (\d+) \((\d+) events replayed\)\n$/;

describe('Auditor CLI: verify --read-models', function () {
  this.timeout(120_000);
  let dir: string;
  let service: RunningService;
  let alice: Owner;
  let bob: Owner;
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dir });
  const tables = () => {
    const db = new Database(join(dir, 'read-models.sqlite'), { readonly: true });
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    db.close();
    return names.map((t) => t.name);
  };

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    [alice, bob] = await Promise.all([newOwner(dir, 'alice'), newOwner(dir, 'bob')]);
    for (const [owner, title] of [
      [alice, 'one'],
      [alice, 'two'],
      [bob, 'three'],
    ] as const) {
      await filtersApi(service.url, owner.token).post('/api/v2/filters', newFilter(title));
    }
  });

  after(async () => {
    await service?.close();
  });

  it('finds no drift while the service keeps answering reads and writes, and leaves the tables as they were', async () => {
    const before = tables();
    const api = filtersApi(service.url, bob.token);
    const check = cli('verify', '--read-models');
    let done = false;
    void check.then(() => (done = true));
    const statuses: number[] = [];
    // Reads and writes for as long as the check runs, each answered before the next goes.
    while (!done) {
      statuses.push((await api.get('/api/v2/filters')).status);
      const created = await api.post('/api/v2/filters', newFilter(`during ${statuses.length}`));
      statuses.push(created.status, (await api.delete(`/api/v2/filters/${created.body.id}`)).status);
    }
    const { code, stdout, stderr } = await check;
    assert.equal(code, 0, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, SUMMARY);
    assert.ok(statuses.length >= 3, 'the service answered during the check');
    assert.deepEqual(new Set(statuses), new Set([200]));
    assert.deepEqual(tables(), before, 'the scratch generation is gone');
  });

  it('names a changed v2 row and a changed v1 row exactly, on stdout, and exits 1', async () => {
    const [filter] = (await filtersApi(service.url, alice.token).get('/api/v2/filters')).body as { id: string; title: string; keywords: { id: string }[] }[];
    const keyword = filter!.keywords[0]!.id;
    const db = new Database(join(dir, 'read-models.sqlite'));
    db.prepare(`UPDATE filters SET doc = json_set(doc, '$.context', json('["home","thread"]')) WHERE id = ?`).run(filter!.id);
    db.prepare(`UPDATE v1_filters SET doc = json_set(doc, '$.wholeWord', json('false')) WHERE filter_id = ? AND id = ?`).run(filter!.id, keyword);
    db.close();
    const { code, stdout, stderr } = await cli('verify', '--read-models');
    assert.equal(code, 1);
    assert.deepEqual(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
      [
        { account: alice.accountId, filter: filter!.id, model: 'v2', field: 'context', live: ['home', 'thread'], log: ['home'] },
        { account: alice.accountId, filter: filter!.id, model: 'v1', keyword, field: 'wholeWord', live: false, log: true },
      ],
    );
    assert.match(
      stderr,
      /^verified \d+ events; head \d+:[0-9a-f]{64}\nerror: the read models differ from the log in 2 places: 2 accounts, \d+ filters checked against the log up to position \d+ \(\d+ events replayed\)\n$/,
    );
  });

  it('refuses, with one line, a verify --read-models it cannot run', async () => {
    const extra = await cli('verify', '--read-models', '{"$gt":""}');
    assert.equal(extra.code, 1);
    assert.match(extra.stderr, /^error: too many arguments for 'verify'/);
    const missing = await runCli(['verify', '--read-models'], { DATA_DIR: join(dir, 'nowhere') });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: DATA_DIR .*nowhere does not exist: set DATA_DIR to the data directory the server uses\n$/);
  });
});
