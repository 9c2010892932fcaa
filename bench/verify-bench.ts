/**
 * `verify` on a large log against a raw scan of the same file, side by side in the same run:
 *   node --import tsx bench/verify-bench.ts [events=1000000] [rounds=3]
 * Ours: verifyChains over events.sqlite (every event's content hashed, both chains checked). Baseline: the
 * same pages of the same columns read with nothing done but touching each value (what any walk of the log
 * costs). Goal: verify at no less than half the speed of the scan, ratio (time ours / time baseline) <= 2.
 * Then the chain migration of the same file, as a log written before the chains is upgraded on first open.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { verifyChains } from '../src/events/chain-verify.ts';
import { SqliteChainSource } from '../src/events/sqlite-chain-source.ts';
import { verifySqliteLog } from '../src/events/sqlite-verify.ts';
import { availableParallelism } from 'node:os';
import { openSqlite } from '../src/shared/sqlite.ts';
import { eventsSchema } from '../src/events/sqlite-events-schema.ts';
import { logFixture } from './log-fixture.ts';
import { count, loadAverage, median, printRow } from './bench-rows.ts';

const events = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 3);

function rawScan(path: string): number {
  const db = new Database(path, { readonly: true });
  const page = db
    .prepare(
      'SELECT position, stream, revision, type, data, metadata, prev_hash, event_hash, chain_hash FROM events WHERE position > ? ORDER BY position LIMIT 4096',
    )
    .raw(true);
  let after = 0;
  let bytes = 0;
  let n = 0;
  for (;;) {
    const rows = page.all(after) as [number, string, number, string, string, string, string, string, string][];
    for (const [, stream, , type, data, metadata, prevHash, eventHash, chainHash] of rows) {
      bytes += stream.length + type.length + data.length + metadata.length + prevHash.length + eventHash.length + chainHash.length;
      n += 1;
    }
    if (rows.length < 4096) break;
    after = rows.at(-1)![0];
  }
  db.close();
  if (bytes === 0 && n > 0) throw new Error('nothing read');
  return n;
}

async function seconds(work: () => unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

process.stderr.write(`load average ${loadAverage()}\n`);
const fixture = await logFixture(events);
const path = join(fixture.dir, 'events.sqlite');
// The migration first: the file as the schema before the chains had it (a fixture cached by an earlier
// build is that already), opened by this build, which hashes every event.
const db = new Database(path);
if (Number(db.pragma('user_version', { simple: true })) > 2) {
  db.exec(
    'DROP TRIGGER events_need_chain; ALTER TABLE events DROP COLUMN prev_hash; ALTER TABLE events DROP COLUMN event_hash; ALTER TABLE events DROP COLUMN chain_hash; PRAGMA user_version = 2;',
  );
}
db.close();
const migration = await seconds(() => openSqlite(path, eventsSchema).close());
const oneWalk: number[] = [];
const split: number[] = [];
const baseline: number[] = [];
let verified = 0;
for (let round = 0; round < rounds; round += 1) {
  baseline.push(await seconds(() => rawScan(path)));
  oneWalk.push(
    await seconds(async () => {
      const source = new SqliteChainSource(path);
      const outcome = await verifyChains(source);
      source.close();
      if (!outcome.ok) throw new Error(`verify failed: ${outcome.reason}`);
      verified = outcome.events;
    }),
  );
  split.push(
    await seconds(async () => {
      const outcome = await verifySqliteLog(path, null);
      if (!outcome.ok || outcome.events !== verified) throw new Error('verify split failed');
    }),
  );
}
const b = median(baseline);
for (const [name, times] of [
  ['one walk, in process', oneWalk],
  [`split over ${Math.min(4, availableParallelism())} threads, as the CLI runs it`, split],
] as const) {
  const o = median(times);
  printRow(
    `verify, ${count(verified)} events (${name})`,
    `${o.toFixed(2)} s (${count(verified / o)} events/s)`,
    `${b.toFixed(2)} s (${count(verified / b)} events/s, raw scan of the same pages in one thread)`,
    o / b,
    'at most 2: at least half the speed of a raw scan',
  );
}
printRow(
  `chain migration of ${count(verified)} events (first open)`,
  `${migration.toFixed(1)} s`,
  `${b.toFixed(2)} s (raw scan)`,
  migration / b,
  'done once, at upgrade',
);
rmSync(fixture.dir, { recursive: true, force: true });
