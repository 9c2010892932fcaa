import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

interface Line {
  type: string;
  stream: string;
  revision: number;
  position: string;
  time: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const ndjson = (text: string): Line[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('Auditor CLI: events and filters --as-of', function () {
  this.timeout(60_000);
  let dir: string;
  let service: RunningService;
  let alice: Owner;
  let bob: Owner;
  let kept: string;
  let renamed: string;
  let beforeRename: Line;
  /** The whole history as `events` prints it; positions also count the usage ledger's events, which it leaves out. */
  let all: Line[];
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dir });

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    [alice, bob] = await Promise.all([newOwner(dir, 'alice'), newOwner(dir, 'bob')]);
    const a = filtersApi(service.url, alice.token);
    kept = (await a.post('/api/v2/filters', newFilter('kept'))).body.id;
    renamed = (await a.post('/api/v2/filters', newFilter('old title'))).body.id;
    await filtersApi(service.url, bob.token).post('/api/v2/filters', newFilter("bob's"));
    // Event times have millisecond resolution: let the clock pass bob's event, so a moment between it
    // and the rename exists. This waits for the next millisecond, not for a guessed delay.
    const bobsTime = Date.now();
    while (Date.now() <= bobsTime) await new Promise((resolve) => setImmediate(resolve));
    await a.put(`/api/v2/filters/${renamed}`, { title: 'new title' });
    await a.delete(`/api/v2/filters/${kept}`);
  });

  after(async () => {
    await service?.close();
  });

  it('prints the whole history as NDJSON with stream, revision, position, time and the request id', async () => {
    const { code, stdout } = await cli('events');
    assert.equal(code, 0);
    const lines = ndjson(stdout);
    assert.deepEqual(
      lines.map((l) => l.type),
      ['FilterCreated', 'KeywordsUpdated', 'FilterCreated', 'KeywordsUpdated', 'FilterCreated', 'KeywordsUpdated', 'FilterUpdated', 'FilterDeleted'],
    );
    const positions = lines.map((l) => Number(l.position));
    assert.deepEqual(
      positions,
      [...new Set(positions)].sort((a, b) => a - b),
      'growing, each its own',
    );
    assert.deepEqual(Object.keys(lines[0]!), ['type', 'stream', 'revision', 'position', 'time', 'data', 'metadata']);
    assert.equal(lines[0]!.stream, `filter-${kept}`);
    assert.equal(lines[1]!.revision, 1);
    assert.match(String(lines[0]!.metadata.requestId), /^[\w.:@/+=-]+$/);
    assert.ok(!Number.isNaN(Date.parse(lines[0]!.time)));
    beforeRename = lines[5]!;
    all = lines;
  });

  it("narrows to an account's filters, to one filter, and to what came after a position or a time", async () => {
    const [mine, one, afterPosition, afterTime] = await Promise.all([
      cli('events', '--account', alice.accountId),
      cli('events', '--filter', renamed),
      cli('events', '--since', all[5]!.position),
      cli('events', '--since', new Date(Date.parse(beforeRename.time) + 1).toISOString()),
    ]);
    assert.equal(ndjson(mine.stdout).length, 6);
    const bobsStream = `filter-${(await filtersApi(service.url, bob.token).get('/api/v2/filters')).body[0].id}`;
    assert.ok(ndjson(mine.stdout).every((l) => l.stream !== bobsStream));
    assert.deepEqual(
      ndjson(one.stdout).map((l) => l.type),
      ['FilterCreated', 'KeywordsUpdated', 'FilterUpdated'],
    );
    assert.deepEqual(
      ndjson(afterPosition.stdout).map((l) => l.position),
      [all[6]!.position, all[7]!.position],
    );
    assert.deepEqual(
      ndjson(afterTime.stdout).map((l) => l.type),
      ['FilterUpdated', 'FilterDeleted'],
    );
  });

  it("shows an account's filters as they stood at a position or a time", async () => {
    const [atPosition, atTime, now] = await Promise.all([
      cli('filters', '--account', alice.accountId, '--as-of', all[5]!.position),
      cli('filters', '--account', alice.accountId, '--as-of', beforeRename.time),
      cli('filters', '--account', alice.accountId, '--as-of', '100'),
    ]);
    assert.equal(atPosition.code, 0);
    const then = JSON.parse(atPosition.stdout) as { id: string; title: string; keywords: { keyword: string }[] }[];
    assert.deepEqual(
      then.map((f) => [f.id, f.title]),
      [
        [kept, 'kept'],
        [renamed, 'old title'],
      ],
    );
    assert.equal(then[0]!.keywords[0]!.keyword, 'magic');
    assert.deepEqual(JSON.parse(atTime.stdout), then);
    const current = (await filtersApi(service.url, alice.token).get('/api/v2/filters')).body;
    assert.deepEqual(JSON.parse(now.stdout), current);
  });

  it('says on stderr which position it replayed to; a date alone is its midnight (UTC), before any event here', async () => {
    const atPosition = await cli('filters', '--account', alice.accountId, '--as-of', all[5]!.position);
    assert.equal(atPosition.stderr, `as of position ${all[5]!.position}: replayed this account's filters up to position ${all[3]!.position}\n`);
    const today = new Date().toISOString().slice(0, 10);
    const dateOnly = await cli('filters', '--account', alice.accountId, '--as-of', today);
    assert.equal(dateOnly.code, 0);
    assert.deepEqual(JSON.parse(dateOnly.stdout), []);
    assert.equal(dateOnly.stderr, `as of ${today}T00:00:00.000Z: no event of this account's filters at or before it\n`);
    const now = await cli('filters', '--account', bob.accountId, '--as-of', '100');
    assert.match(now.stderr, /^as of position 100: replayed this account's filters up to position \d+\n$/);
  });

  it('refuses unknown accounts, ids and moments that are not well formed', async () => {
    const badAccount = await cli('events', '--account', '{"$gt":""}');
    assert.equal(badAccount.code, 1);
    assert.equal(badAccount.stderr, 'error: no account "{"$gt":""}" (give a username or an account id)\n');
    const badId = await cli('events', '--filter', 'abc');
    assert.equal(badId.code, 1);
    assert.match(badId.stderr, /an id is a string of digits/);
    const badPoint = await cli('filters', '--account', alice.accountId, '--as-of', 'yesterday');
    assert.equal(badPoint.code, 1);
    assert.match(badPoint.stderr, /ISO-8601/);
  });
});
