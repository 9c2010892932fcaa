/**
 * How fast `projections rebuild` projects on the embedded stores, against a raw scan of the same log:
 *   node --import tsx bench/rebuild-bench.ts [events=200000] [rounds=3]
 * The log (bench/log-fixture.ts) is marked as already projected; then, in alternation, a raw scan
 * (better-sqlite3 reading every event and parsing its data and metadata) and the real CLI command run,
 * each in its own process, on a fresh copy of the data directory. Prints the median of each.
 * BENCH_BEFORE_DIST=<dir>: another build's dist/ (say main's) rebuilt in the same rounds, and this
 * build's dist/ instead of the sources, so both run compiled; a "before" row is printed too.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDist, count, loadAverage, markProjected, median, rawScan, rebuild, printRow } from './bench-rows.ts';
import { logFixture } from './log-fixture.ts';

const events = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 3);
const beforeDist = process.env.BENCH_BEFORE_DIST;
if (beforeDist) buildDist();
const ownDist = beforeDist ? fileURLToPath(new URL('../dist/', import.meta.url)) : undefined;
const [ours, raw, perCpu, before]: [number[], number[], number[], number[]] = [[], [], [], []];
for (let round = 1; round <= rounds; round += 1) {
  if (beforeDist) {
    const copy = await logFixture(events);
    await markProjected(copy.dir, copy.lastPosition);
    const older = rebuild(copy.dir, beforeDist);
    before.push(older.rate);
    process.stderr.write(`round ${round}: before ${count(older.rate)} events/s (${count(older.perCpuSecond)} per CPU-second), load average ${loadAverage()}\n`);
    rmSync(copy.dir, { recursive: true, force: true });
  }
  const fixture = await logFixture(events);
  await markProjected(fixture.dir, fixture.lastPosition);
  raw.push(rawScan(fixture.dir));
  const { rate, perCpuSecond } = rebuild(fixture.dir, ownDist);
  ours.push(rate);
  perCpu.push(perCpuSecond);
  process.stderr.write(
    `round ${round}: rebuild ${count(ours.at(-1)!)} events/s (${count(perCpu.at(-1)!)} per CPU-second), raw scan ${count(raw.at(-1)!)} events/s, load average ${loadAverage()}\n`,
  );
  rmSync(fixture.dir, { recursive: true, force: true });
}
const [o, r] = [median(ours), median(raw)];
if (beforeDist) {
  const b = median(before);
  printRow(
    `projections rebuild, ${count(events)} events, before (${beforeDist})`,
    `${count(b)} events/s`,
    `${count(r)} events/s (raw scan)`,
    b / r,
    'at least 0.3',
  );
}
process.stderr.write(`median: ${count(median(perCpu))} events per CPU-second of the whole rebuild process, start-up included\n`);
printRow(`projections rebuild, ${count(events)} events`, `${count(o)} events/s`, `${count(r)} events/s (raw scan)`, o / r, 'at least 0.3');
