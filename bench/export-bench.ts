/**
 * How fast `export --all` writes the log, against a raw scan of the same log:
 *   node --import tsx bench/export-bench.ts [events=1000000] [rounds=3]
 * In alternation, each in its own process on the same copy of the data directory: the raw scan
 * (better-sqlite3 reading every event and parsing its data and metadata, as the rebuild bench's
 * baseline) and the real CLI command writing every line to a file beside the log. The export's rate is
 * its own figure (events over the time from its first read to its last write), start-up left out as
 * the scan's is. Also the CPU the export process used and its peak memory, and, for scale, the rows read
 * alone with nothing parsed (no export can beat that: it reads the same rows and writes them too).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { count, loadAverage, median, printRow, rawScan } from './bench-rows.ts';
import { logFixture } from './log-fixture.ts';

const events = Number(process.argv[2] ?? 1_000_000);

/** A stricter baseline beside it: better-sqlite3 reading every row's columns, parsing nothing. */
const ROWS_ONLY = `
  const db = new (require('better-sqlite3'))(process.argv[1], { readonly: true });
  const page = db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT 4096');
  const started = process.hrtime.bigint();
  let n = 0, after = 0;
  for (let rows = page.all(after); rows.length > 0; rows = page.all(after)) { n += rows.length; after = rows[rows.length - 1].position; }
  process.stdout.write(String(n / (Number(process.hrtime.bigint() - started) / 1e9)));
`;
const rowsOnly = (dir: string): number => Number(execFileSync(process.execPath, ['-e', ROWS_ONLY, join(dir, 'events.sqlite')]).toString());
const rounds = Number(process.argv[3] ?? 3);

function exportAll(dir: string): { rate: number; cpu: number; peakMb: number; bytes: number } {
  const output = join(dir, 'export.jsonl');
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', 'cpu %U %S peak %M', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'export', '--all', '--output', output],
    {
      env: { ...process.env, DATA_DIR: dir },
    },
  );
  const stderr = run.stderr.toString();
  const found = /export: (\d+) events in [\d.]+ s, (\d+) events\/s/.exec(stderr);
  if (run.status !== 0 || !found) throw new Error(`export failed: ${stderr}`);
  const [, user, system, peak] = /cpu ([\d.]+) ([\d.]+) peak (\d+)/.exec(stderr)!;
  const bytes = statSync(output).size;
  rmSync(output);
  return { rate: Number(found[2]), cpu: Number(user) + Number(system), peakMb: Number(peak) / 1024, bytes };
}

const fixture = await logFixture(events);
const [ours, raw, rows] = [[] as number[], [] as number[], [] as number[]];
for (let round = 1; round <= rounds; round += 1) {
  raw.push(rawScan(fixture.dir));
  rows.push(rowsOnly(fixture.dir));
  const run = exportAll(fixture.dir);
  ours.push(run.rate);
  process.stderr.write(
    `round ${round}: export ${count(run.rate)} events/s (${run.cpu.toFixed(1)} s of CPU, peak ${Math.round(run.peakMb)} MB, ${count(run.bytes / 1e6)} MB written), ` +
      `raw scan ${count(raw.at(-1)!)} events/s, rows alone ${count(rows.at(-1)!)} events/s, load average ${loadAverage()}\n`,
  );
}
rmSync(fixture.dir, { recursive: true, force: true });
const [o, r] = [median(ours), median(raw)];
printRow(`export --all, ${count(fixture.events)} events`, `${count(o)} events/s`, `${count(r)} events/s (raw scan)`, o / r, 'at least 0.5');
printRow(
  `export --all against reading the rows alone`,
  `${count(o)} events/s`,
  `${count(median(rows))} events/s (rows, no parse)`,
  o / median(rows),
  'none: for scale',
);
