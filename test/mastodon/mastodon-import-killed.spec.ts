import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { usageStream } from '../../src/events/account-usage-events.ts';
import { MastodonTestDatabase } from '../support/mastodon-database.ts';
import { insertManyMastodonFilters } from '../support/mastodon-filter-rows.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const lines = (text: string) => text.split('\n').filter(Boolean);

describe('mastodon import: killed half way, or run twice at once, each filter lands once', function () {
  this.timeout(300_000);
  let db: MastodonTestDatabase;
  let server: TestServer;
  let env: Record<string, string>;
  let ids: string[];
  let accounts: string[];

  beforeEach(async () => {
    db = await MastodonTestDatabase.create();
    env = { DATA_DIR: scratchDir(), MASTODON_DATABASE_URL: db.url };
    server = await TestServer.start(env);
    accounts = [];
    ids = [];
    for (let i = 0; i < 3; i += 1) {
      const user = await db.user();
      accounts.push(user.accountId);
      ids.push(...(await insertManyMastodonFilters(db, user.accountId, { count: 100, keywords: 2 })));
    }
  });
  afterEach(async () => {
    await server?.close();
    await db?.drop();
  });

  /** Every filter's stream holds exactly its one import commit, and each account's usage ledger counts its 100 filters. */
  async function eachFilterOnce(): Promise<void> {
    for (const id of ids) {
      const types = (await server.service.stores.events.readStream(`filter-${id}`)).map((e) => e.type);
      assert.deepEqual(types, ['FilterCreated', 'KeywordsUpdated'], `filter ${id}`);
    }
  }

  it('SIGKILLed after some filters, the next run imports the rest and nothing twice', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mastodon', 'import'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    // Killed once it has said it imported 30 filters: in the middle of the 300, wherever it is in the next one.
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (lines(out).length >= 30 && child.exitCode === null) child.kill('SIGKILL');
    });
    await ended;
    const before = lines(out).filter((l) => l.startsWith('imported')).length;
    assert.ok(before >= 30 && before < ids.length, `the first run was killed half way (${before} imported)`);

    const again = await runCli(['mastodon', 'import'], env);
    assert.equal(again.code, 0, again.stderr);
    const second = lines(again.stdout);
    assert.equal(second.length, ids.length);
    const present = second.filter((l) => l.startsWith('already in the log')).length;
    assert.ok(present >= before, `${present} already there, ${before} said imported before the kill`);
    assert.equal(second.filter((l) => l.startsWith('imported')).length, ids.length - present);
    await eachFilterOnce();
    const verified = await runCli(['verify', '--read-models'], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });

  it('two runs at once import each filter once between them, and the usage ledgers count what is there', async () => {
    const [a, b] = await Promise.all([runCli(['mastodon', 'import'], env), runCli(['mastodon', 'import'], env)]);
    assert.deepEqual([a.code, b.code], [0, 0], a.stderr + b.stderr);
    const imported = (run: { stdout: string }) => lines(run.stdout).filter((l) => l.startsWith('imported')).length;
    assert.equal(lines(a.stdout).length, ids.length);
    assert.equal(lines(b.stdout).length, ids.length);
    assert.equal(imported(a) + imported(b), ids.length, `${imported(a)} + ${imported(b)}`);
    await eachFilterOnce();
    for (const account of accounts) {
      const last = (await server.service.stores.events.readStream(usageStream(account))).at(-1);
      assert.equal((last?.data as { filters: number }).filters, 100, `account ${account}'s ledger`);
    }
  });
});
