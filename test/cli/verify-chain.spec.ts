import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { runCli, type CliResult } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { changeOneByte, copyOfLog, deleteEvent, rewriteHistory, swapEvents, truncateTail, writeLog } from '../support/sqlite-log-tamper.ts';

const verify = (dir: string, ...args: string[]): Promise<CliResult> => runCli(['verify', ...args], { DATA_DIR: dir });
const HEAD = /^verified (\d+) events; head (\d+:[0-9a-f]{64})/;

function failure(result: CliResult): string {
  assert.equal(result.code, 2, `exit code 2, got ${result.code}: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  return lines[0]!;
}

describe('content-filters verify on an events.sqlite (tamper evidence)', function () {
  this.timeout(120_000);
  let dir: string;
  let head: string;

  before(async () => {
    dir = scratchDir();
    await writeLog(dir);
    const result = await verify(dir);
    assert.equal(result.code, 0, result.stderr);
    const match = HEAD.exec(result.stdout);
    assert.ok(match, result.stdout);
    assert.equal(match[1], '10');
    head = match[2]!;
  });

  it('passes an untouched log and prints its head at the last position', () => {
    assert.match(head, /^10:/);
  });

  for (const column of ['data', 'metadata', 'type'] as const) {
    it(`names the event whose ${column} had one byte changed`, async () => {
      const copy = copyOfLog(dir);
      changeOneByte(copy, 6n, column, 5);
      assert.match(failure(await verify(copy)), /^error: verify failed at position 6: content changed: .* revision 2 /);
    });
  }

  it('names the position after an event deleted from the middle', async () => {
    const copy = copyOfLog(dir);
    deleteEvent(copy, 4n);
    assert.match(failure(await verify(copy)), /^error: verify failed at position 5: event missing: .* between positions 3 and 5/);
  });

  it('names the first of two events of different streams that swapped places', async () => {
    const copy = copyOfLog(dir);
    swapEvents(copy, 4n, 7n);
    assert.match(failure(await verify(copy)), /^error: verify failed at position 4: order changed/);
  });

  it('names a stream whose two events swapped places', async () => {
    const copy = copyOfLog(dir);
    swapEvents(copy, 3n, 6n);
    assert.match(
      failure(await verify(copy)),
      /^error: verify failed at position 3: order changed: stream filter-\S+ revision 2 comes before its revision 1 \(at position 6\)/,
    );
  });

  it('says the tail was truncated when given a head recorded before, and passes without one', async () => {
    const copy = copyOfLog(dir);
    truncateTail(copy, 3);
    assert.match(
      failure(await verify(copy, '--expect', head)),
      /^error: verify failed at position 7: tail truncated: the log ends at position 7, before the expected head's position 10/,
    );
    // Alone, a shorter log is a consistent log: only a head kept elsewhere shows what is gone.
    assert.match((await verify(copy)).stdout, /^verified 7 events; head 7:/);
  });

  it('names a history rewritten with freshly computed hashes, against a head recorded before', async () => {
    const copy = copyOfLog(dir);
    rewriteHistory(copy, 2n);
    assert.equal((await verify(copy)).code, 0);
    assert.match(failure(await verify(copy, '--expect', head)), /^error: verify failed at position 10: history rewritten/);
  });

  it('keeps an earlier head valid after more appends', async () => {
    const copy = copyOfLog(dir);
    const store = SqliteEventStore.inDataDir(copy);
    try {
      await store.appendToStream(filterStream(randomUUID()), [{ type: 'FilterCreated', data: {}, metadata: {} }], 'no_stream');
    } finally {
      await store.close();
    }
    const result = await verify(copy, '--expect', head);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^verified 11 events; head 11:[0-9a-f]{64}; passes through ${head}\\n$`));
  });

  it('refuses a head it cannot read with one line and exit code 1', async () => {
    const result = await verify(dir, '--expect', 'latest');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: option '--expect <position:hash>' argument 'latest' is invalid/);
    assert.doesNotMatch(result.stderr, /\n {4}at /);
  });
});
