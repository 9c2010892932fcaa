/**
 * `npm run bench`: runs every `bench/*-bench.ts` in turn, each in its own process (their output passes
 * through), then prints every `name: ours X, baseline Y, ratio Z (goal G)` row again, together.
 * BENCH_ONLY_FILES (a regular expression on file names) picks some of them.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { goalMet, loadAverage, ROW } from './bench-rows.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const pick = process.env.BENCH_ONLY_FILES ? new RegExp(process.env.BENCH_ONLY_FILES) : null;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('-bench.ts') && (!pick || pick.test(name)))
  .sort();
const rows: string[] = [];
let failed = 0;

for (const file of files) {
  console.log(`\n== ${file} (load average ${loadAverage()})`);
  const started = spawn(process.execPath, ['--import', 'tsx', `${dir}${file}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: started.stdout })) {
    console.log(line);
    if (ROW.test(line)) rows.push(line);
  }
  const code: number = started.exitCode ?? (await new Promise((resolve) => started.once('exit', (c) => resolve(c ?? 1))));
  if (code !== 0) {
    failed += 1;
    console.log(`${file} failed (exit ${code})`);
  }
}

console.log(`\n== every row (load average ${loadAverage()})`);
const verdicts = { met: 0, missed: 0 };
for (const line of rows) {
  const met = goalMet(line);
  if (met !== null) verdicts[met ? 'met' : 'missed'] += 1;
  console.log(`${met === null ? '[judge by eye]' : met ? '[goal met]' : '[goal NOT met]'} ${line}`);
}
console.log(`goals met: ${verdicts.met} of ${verdicts.met + verdicts.missed} rows with a ratio goal`);
if (failed > 0) process.exitCode = 1;
