import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { runCli, type CliResult } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { setColumn } from '../support/sqlite-log-tamper.ts';

const HEAD = /^verified (\d+) events; head (\d+:[0-9a-f]{64})\n$/;

function brokenAt(result: CliResult): string {
  assert.equal(result.code, 2, `exit code 2, got ${result.code}: ${result.stdout}${result.stderr}`);
  return result.stderr;
}

/** A copy of the whole data directory (the audit commands look the account up in accounts.sqlite). */
function copyOf(dir: string): string {
  const copy = join(scratchDir('altered-'), 'data');
  cpSync(dir, copy, { recursive: true });
  return copy;
}

function change(dir: string, sql: string, ...params: unknown[]): void {
  const db = new Database(join(dir, 'events.sqlite'));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

// What the auditor's queries read beside the hashed content: the account index (events --account,
// export --account, filters --as-of), the recorded time (--as-of, --since, --until) and the event id.
// Each alteration must fail `verify` with exit 2, not only change what those commands print.
describe('content-filters verify: the account index, recorded times and event ids the audit commands rely on', function () {
  this.timeout(180_000);
  let dir: string;
  let owner: Owner;
  let filterId: string;
  let stream: string;
  let created: bigint;
  let head: string;

  before(async () => {
    dir = scratchDir('audited-');
    owner = await newOwner(dir);
    const service = NodeProcess.start('src/main.ts', { DATA_DIR: dir, RATE_LIMITS: 'off' });
    try {
      const api = filtersApi(await service.url(), owner.token);
      assert.equal((await api.post('/api/v2/filters', newFilter('kept'))).status, 200);
      const answer = await api.post('/api/v2/filters', newFilter('audited'));
      assert.equal(answer.status, 200);
      filterId = answer.body.id as string;
    } finally {
      assert.equal(await service.kill('SIGTERM'), 0);
    }
    stream = `filter-${filterId}`;
    const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
    created = BigInt((db.prepare("SELECT position FROM events WHERE stream = ? AND type = 'FilterCreated'").get(stream) as { position: number }).position);
    db.close();
    const verified = await runCli(['verify'], { DATA_DIR: dir });
    assert.equal(verified.code, 0, verified.stderr);
    head = HEAD.exec(verified.stdout)![2]!;
  });

  const auditedEvents = async (at: string) => {
    const listed = await runCli(['events', '--account', owner.accountId, '--format', 'json'], { DATA_DIR: at });
    assert.equal(listed.code, 0, listed.stderr);
    return listed.stdout;
  };

  it('reports a stream_owners row deleted (the filter hidden from events --account), with and without --expect', async () => {
    const copy = copyOf(dir);
    assert.match(await auditedEvents(copy), new RegExp(filterId));
    change(copy, 'DELETE FROM stream_owners WHERE stream = ?', stream);
    assert.doesNotMatch(await auditedEvents(copy), new RegExp(filterId), 'the alteration hides the filter');
    const expected = `error: verify failed at position ${created}: account index altered: stream ${stream} is created by account ${owner.accountId}, but stream_owners has no row for it`;
    assert.ok(brokenAt(await runCli(['verify'], { DATA_DIR: copy })).startsWith(expected));
    assert.ok(brokenAt(await runCli(['verify', '--expect', head], { DATA_DIR: copy })).startsWith(expected));
  });

  it('reports a stream_owners row given to another account, and one no creation event accounts for', async () => {
    const moved = copyOf(dir);
    change(moved, 'UPDATE stream_owners SET account_id = ? WHERE stream = ?', '999', stream);
    assert.match(brokenAt(await runCli(['verify'], { DATA_DIR: moved })), /account index altered: stream .* but stream_owners gives it to account 999/);
    const invented = copyOf(dir);
    change(invented, 'INSERT INTO stream_owners (stream, account_id) VALUES (?, ?)', 'filter-123456', owner.accountId);
    assert.match(
      brokenAt(await runCli(['verify'], { DATA_DIR: invented })),
      /^error: verify failed: account index altered: stream_owners gives stream filter-123456 to account \d+, but no event of the log creates it\n$/,
    );
  });

  it('reports a recorded time moved back to 2020 (the filter shown by filters --as-of 2021-01-01)', async () => {
    const copy = copyOf(dir);
    setColumn(copy, created, 'recorded_at', '2020-06-01T00:00:00.000Z');
    const asOf = await runCli(['filters', '--account', owner.accountId, '--as-of', '2021-01-01'], { DATA_DIR: copy });
    assert.match(asOf.stdout, /"audited"/, 'the alteration shows a 2026 filter in 2021');
    assert.match(
      brokenAt(await runCli(['verify'], { DATA_DIR: copy })),
      new RegExp(
        `^error: verify failed at position ${created}: content changed: the event id, stream, revision, type, data, metadata or recorded time of stream ${stream} revision 0 `,
      ),
    );
  });

  it('reports a changed event id, and a hash version set back to 1 (null) or to another', async () => {
    for (const [column, value] of [
      ['event_id', '00000000-0000-7000-8000-000000000000'],
      ['hash_version', null],
      ['hash_version', 3],
    ] as const) {
      const copy = copyOf(dir);
      setColumn(copy, created, column, value);
      assert.match(
        brokenAt(await runCli(['verify'], { DATA_DIR: copy })),
        new RegExp(`^error: verify failed at position ${created}: `),
        `${column} = ${value}`,
      );
    }
  });
});
