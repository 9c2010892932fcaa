/** The one line format every bench prints and `npm run bench` collects, and what the log benches share. */
import { execFileSync, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { FILTERS_PROJECTION } from '../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../src/projections/stores/sqlite-read-store.ts';

export const ROW = /^.+?: ours .+, baseline .+, ratio .+$/;

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** `name: ours X, baseline Y, ratio Z (goal G)`; a row without a baseline has ratio n/a. */
export const row = (name: string, ours: string, baseline: string, ratio: number | null, goal: string): string =>
  `${name}: ours ${ours}, baseline ${baseline}, ratio ${ratio === null ? 'n/a' : ratio.toFixed(2)} (goal ${goal})`;

/**
 * Whether a printed row meets its goal, where the goal is a least ratio (`0.5`, `at least 0.3`), with or
 * without a p99 bound (`0.5, p99 at most 2x`, judged on the row's `p99 <n>x`); null for a goal of another
 * kind (a time, a size, words), which the reader judges from the row.
 */
export function goalMet(line: string): boolean | null {
  const found = /, ratio ([\d.]+) \(goal (?:at least )?(\d+(?:\.\d+)?)(?:, p99 at most ([\d.]+)x)?\)(.*)$/.exec(line);
  if (!found) return null;
  const [, ratio, least, p99Bound, rest] = found;
  if (Number(ratio) < Number(least)) return false;
  if (p99Bound === undefined) return true;
  const p99 = /^, p99 ([\d.]+)x/.exec(rest!);
  return p99 !== null && Number(p99[1]) <= Number(p99Bound);
}

/** Prints one row on its own line. */
export const printRow = (...args: Parameters<typeof row>): void => {
  process.stdout.write(`${row(...args)}\n`);
};

export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Marks the log as projected by a live projector, so `projections rebuild` fills up to its last event. */
export async function markProjected(dir: string, position: bigint): Promise<void> {
  const reads = SqliteReadStore.inDataDir(dir);
  await reads.advanceCheckpoint({ projection: FILTERS_PROJECTION, position });
  await reads.close();
}

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

/** The baseline of a rebuild, in its own process: better-sqlite3 reading every event and parsing its data and metadata. */
/** Builds dist/ when a source is newer, so a benchmark of the compiled service measures the code as it is. */
export function buildDist(): void {
  execFileSync(process.execPath, [new URL('../scripts/build.js', import.meta.url).pathname, '--if-stale'], { stdio: 'inherit' });
}

export const rawScan = (dir: string): number => Number(execFileSync(process.execPath, ['-e', RAW_SCAN, join(dir, 'events.sqlite')]).toString());

/**
 * The real `projections rebuild` command in its own process (of `distDir` when given): its events/s over the time spent projecting,
 * and the events per second of CPU the whole process used (start-up included), which a loaded machine
 * changes less.
 */
export function rebuild(dir: string, distDir?: string): { rate: number; perCpuSecond: number } {
  // The sources through tsx, or a compiled build (BENCH_BEFORE_DIST's and this one's, compared alike).
  const cli = distDir ? [join(distDir, 'cli/main.js')] : ['--import', 'tsx', 'src/cli/main.ts'];
  const run = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, ...cli, 'projections', 'rebuild'], {
    env: { ...process.env, DATA_DIR: dir },
  });
  const summary = run.stdout.toString();
  const found = /: (\d+) events\/s/.exec(summary);
  if (run.status !== 0 || !found) throw new Error(`projections rebuild failed: ${summary}${run.stderr.toString()}`);
  const [, user, system] = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr.toString())!;
  const events = Number(/rebuilt (\d+) events/.exec(summary)![1]);
  return { rate: Number(found[1]), perCpuSecond: events / (Number(user) + Number(system)) };
}
