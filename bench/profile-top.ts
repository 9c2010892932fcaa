/**
 * The top self-time entries of a V8 CPU profile (`node --cpu-prof`), by function and place, as a share
 * of the time the process was not idle:
 *   node --import tsx bench/profile-top.ts <file.cpuprofile> [entries=20]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, entries = '20'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [entries]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  const place = url ? `${basename(url)}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${place}`.trim();
  selfUs.set(key, (selfUs.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const busy = [...selfUs].filter(([key]) => key !== '(idle)').reduce((sum, [, us]) => sum + us, 0);
console.log(`busy ${(busy / 1000).toFixed(0)} ms, idle ${((selfUs.get('(idle)') ?? 0) / 1000).toFixed(0)} ms`);
for (const [key, us] of [...selfUs]
  .filter(([k]) => k !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(entries))) {
  console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
}
