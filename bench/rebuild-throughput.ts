/**
 * How fast `projections rebuild` projects on the embedded stores:
 *   node --import tsx bench/rebuild-throughput.ts [filters=5000]
 * Appends filters (create + keywords + a rename each) to a fresh data directory, marks them as already
 * projected, then runs the real CLI command and prints its summary line.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filterStream } from '../src/events/filter-events.ts';
import { SqliteEventStore } from '../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../src/projections/filter-projector.ts';
import { SqliteReadStore } from '../src/projections/sqlite-read-store.ts';
import { newId } from '../src/shared/ids.ts';

const filters = Number(process.argv[2] ?? 5000);
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
  last = (await events.appendToStream(filterStream(filterId), [{ type: 'FilterUpdated', data: { filterId, ...settings, title: `renamed ${i}`, updatedAt: now }, metadata: metadata(0) }], 1n)).position;
}
await events.close();
const reads = SqliteReadStore.inDataDir(dir);
await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position: last });
await reads.close();
const summary = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'projections', 'rebuild'], {
  env: { ...process.env, DATA_DIR: dir },
  stdio: ['ignore', 'pipe', 'ignore'],
}).toString();
process.stdout.write(`${filters * 3} events: ${summary}`);
rmSync(dir, { recursive: true, force: true });
