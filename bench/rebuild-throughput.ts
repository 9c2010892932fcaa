/**
 * How fast `projections rebuild` projects on the embedded stores, against a raw scan of the same log:
 *   node --import tsx bench/rebuild-throughput.ts [filters=5000] [rounds=3]
 * Appends filters (create + keywords, then a rename: 3 events each) to a fresh data directory outside
 * the repository, marks them as already projected, then runs, in alternation, the real CLI command and
 * a raw scan (better-sqlite3 reading every event and parsing its data and metadata), each in its own
 * process, and prints the median of each and their ratio.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { filterStream } from '../src/events/filter-events.ts';
import { SqliteEventStore } from '../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../src/projections/stores/sqlite-read-store.ts';
import { allowUnleasedIds, newId } from '../src/shared/ids.ts';

allowUnleasedIds();
const filters = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'cf-bench-'));
const events = SqliteEventStore.inDataDir(dir);
const now = new Date().toISOString();
let last = 0n;
for (let i = 0; i < filters; i += 1) {
  const filterId = newId();
  const accountId = String(1000 + (i % 50));
  const metadata = (index: number) => ({ accountId, requestId: `bench-${i}`, apiVersion: 'v2', tokenId: null, commitIndex: index, commitSize: 2 });
  const settings = { title: `filter ${i}`, context: ['home'], action: 'warn', expiresAt: null };
  await events.appendToStream(
    filterStream(filterId),
    [
      { type: 'FilterCreated', data: { filterId, accountId, ...settings, createdAt: now }, metadata: metadata(0) },
      { type: 'KeywordsUpdated', data: { filterId, keywords: [{ id: newId(), keyword: `w${i}`, wholeWord: true }], updatedAt: now }, metadata: metadata(1) },
    ],
    'no_stream',
  );
  last = (
    await events.appendToStream(
      filterStream(filterId),
      [{ type: 'FilterUpdated', data: { filterId, ...settings, title: `renamed ${i}`, updatedAt: now }, metadata: metadata(0) }],
      1n,
    )
  ).position;
}
await events.close();
const reads = SqliteReadStore.inDataDir(dir);
await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
await reads.close();

const RAW_SCAN = `
  const Database = require('better-sqlite3');
  const db = new Database(process.argv[1], { readonly: true });
  const page = db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT 4096');
  const started = process.hrtime.bigint();
  let n = 0, after = 0;
  for (;;) {
    const rows = page.all(after);
    if (rows.length === 0) break;
    for (const row of rows) { JSON.parse(row.data); JSON.parse(row.metadata); n += 1; }
    after = rows[rows.length - 1].position;
  }
  process.stdout.write(String(n / (Number(process.hrtime.bigint() - started) / 1e9)));
`;
const rawScan = () => Number(execFileSync(process.execPath, ['-e', RAW_SCAN, join(dir, 'events.sqlite')]).toString());
const rebuild = () => {
  const summary = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'projections', 'rebuild'], {
    env: { ...process.env, DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  return Number(/: (\d+) events\/s/.exec(summary)![1]);
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

process.stdout.write(
  `${filters * 3} events, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
const [ours, raw]: [number[], number[]] = [[], []];
for (let round = 1; round <= rounds; round += 1) {
  raw.push(rawScan());
  ours.push(rebuild());
  process.stdout.write(`round ${round}: rebuild ${ours.at(-1)!.toFixed(0)} events/s, raw scan ${raw.at(-1)!.toFixed(0)} events/s\n`);
}
const [o, r] = [median(ours), median(raw)];
process.stdout.write(
  `projections rebuild: ours ${o.toFixed(0)} events/s, baseline (raw scan) ${r.toFixed(0)} events/s, ratio ${(o / r).toFixed(2)} (goal 100,000 events/s and 0.3)\n`,
);
rmSync(dir, { recursive: true, force: true });
