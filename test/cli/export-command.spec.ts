import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeLogFixture } from '../../bench/log-fixture.ts';
import { chunksOf } from '../../src/cli/export-command.ts';
import { loadConfig } from '../../src/config.ts';
import type { EventStore } from '../../src/events/event-store.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli, runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** The event-store port alone: what an export gets from a store that keeps no JSON text (EventStoreDB). */
const portOnly = (store: EventStore): EventStore => ({
  appendToStream: (...args) => store.appendToStream(...args),
  readStream: (...args) => store.readStream(...args),
  readAll: (...args) => store.readAll(...args),
  onAppend: (listener) => store.onAppend(listener),
  close: () => store.close(),
});

async function collect(store: EventStore, query: { accountId?: string }) {
  const chunks = [];
  for await (const chunk of chunksOf(store, query)) chunks.push(chunk);
  return chunks;
}

describe('Auditor CLI: export', function () {
  this.timeout(120_000);
  let dir: string;
  let service: RunningService;
  let alice: Owner;
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dir });

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    alice = await newOwner(dir, 'alice');
    const bob = await newOwner(dir, 'bob');
    const a = filtersApi(service.url, alice.token);
    // Text that JSON escapes in every way it can: quotes, backslashes, controls, line separators, astral characters.
    const id = (await a.post('/api/v2/filters', newFilter('"q" \\ \u0001 \u2028 \u{1F600} é', 'ß\u2029'))).body.id;
    await a.put(`/api/v2/filters/${id}`, { title: 'second' });
    await filtersApi(service.url, bob.token).post('/api/v2/filters', newFilter("bob's"));
    await a.delete(`/api/v2/filters/${id}`);
    // An account fact (account-<id>): the account's export holds its own stream as well as its filters'.
    assert.equal((await cli('token', 'create', 'alice')).code, 0);
  });

  after(async () => {
    await service?.close();
  });

  it('writes the same lines as events, byte for byte, for the whole log and for one account', async () => {
    const [all, events, mine, minesEvents] = await Promise.all([
      cli('export', '--all'),
      cli('events', '--format', 'json'),
      cli('export', '--account', 'alice'),
      cli('events', '--account', alice.accountId, '--format', 'json'),
    ]);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout.split('\n').length - 1, 7);
    assert.equal(all.stdout, events.stdout);
    assert.equal(mine.stdout, minesEvents.stdout);
    assert.equal(mine.stdout.split('\n').length - 1, 5);
    assert.match(mine.stdout, /"type":"TokenIssued"/);
    assert.match(all.stderr, /^export: 7 events in \d+\.\d\d s, \d+ events\/s\n$/);
  });

  it('--output writes a file only its owner can read, and nothing on stdout', async () => {
    const file = join(scratchDir(), 'alice.jsonl');
    const result = await cli('export', '--account', alice.accountId, '--output', file);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(readFileSync(file, 'utf8'), (await cli('events', '--account', 'alice')).stdout);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('refuses what it cannot do with one error line and exit 1', async () => {
    const missing = join(scratchDir(), 'no', 'such', 'dir', 'out.jsonl');
    const cases: [string[], RegExp][] = [
      [['export'], /^error: export: give either --account <username-or-id> or --all\n$/],
      [['export', '--all', '--account', 'alice'], /^error: export: give either --account <username-or-id> or --all\n$/],
      [['export', '--account', '{"$gt":""}'], /^error: no account "\{"\$gt":""\}" \(give a username or an account id\)\n$/],
      [['export', '--account', 'x'.repeat(10_000)], /^error: no account "x+" \(give a username or an account id\)\n$/],
      [['export', '--all', '--output', missing], /^error: cannot write .*out\.jsonl: ENOENT: no such file or directory, open '.*'\n$/],
      [['export', '--all', '--output', dir], /^error: cannot write .*: EISDIR: illegal operation on a directory, open '.*'\n$/],
    ];
    for (const [args, expected] of cases) {
      const result = await cli(...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, expected);
      assert.equal(result.stdout, '');
    }
    assert.equal(existsSync(missing), false);
  });

  it('ends quietly when its reader goes away', async () => {
    const command = `${process.execPath} --import tsx src/cli/main.ts export --all | head -1`;
    const result = await runCommand('bash', ['-o', 'pipefail', '-c', command], { DATA_DIR: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.split('\n').length, 2);
    assert.doesNotMatch(result.stderr, /error|EPIPE/i);
  });

  it('hands the log over in chunks of at most 4,096 events, the same text whether the store keeps JSON text or not', async () => {
    const big = scratchDir();
    const fixture = await writeLogFixture(big, 10_000, 5_000);
    const store = SqliteEventStore.inDataDir(big);
    try {
      for (const query of [{}, { accountId: fixture.accountId }]) {
        const [text, parsed] = [await collect(store, query), await collect(portOnly(store), query)];
        const total = text.reduce((sum, c) => sum + c.events, 0);
        assert.equal(total, 'accountId' in query ? fixture.accountEvents : fixture.events);
        assert.ok(total > 4096, 'more than one chunk');
        assert.ok(text.every((c) => c.events <= 4096 && c.text.split('\n').length - 1 === c.events));
        assert.equal(text.map((c) => c.text).join(''), parsed.map((c) => c.text).join(''));
      }
    } finally {
      await store.close();
    }
  });
});
