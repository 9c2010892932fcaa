/**
 * The matching benchmark's adversarial rows: each hostile shape (markup, or a filter set built to slow
 * the automaton) against benign statuses of the same length under the same filters (the benchmark's
 * markup-heavy HTML, and prose), as CPU time per status (median of a few runs) and its ratio to the
 * slower benign one (goal: at most 3). Also what the hostile filter sets cost to compile: time, memory,
 * and the most CPU time the event loop was held during a paced build.
 */
import { CompiledFilters, type MatchableFilter } from '../src/matching/compiled-filters.ts';
import type { MatchableStatus } from '../src/matching/searchable-text.ts';
import { median, printRow } from './bench-rows.ts';
import { benchFilters, benchStatuses } from './match-bench-data.ts';

const LENGTH = 100_000;
const RUNS = 5;

const filterOf = (id: number, words: readonly (readonly [string, boolean])[]): MatchableFilter => ({
  id: String(2_000_000 + id),
  title: `hostile ${id}`,
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: words.map(([keyword, wholeWord]) => ({ keyword, wholeWord })),
  statuses: [],
});

/** CJK characters from a pool of 10,000, the same on every run. */
function cjk(count: number, seed: number): string {
  let state = seed;
  return Array.from({ length: count }, () => String.fromCodePoint(0x4e00 + ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 10_000))).join('');
}

/** About `length` characters of the benchmark's ordinary statuses' HTML, whole statuses only (markup-heavy). */
function benignHtml(length: number): string {
  let html = '';
  for (const status of benchStatuses(1000)) {
    if (html.length + status.content!.length > length) break;
    html += status.content;
  }
  return html;
}

/** `length` characters of prose in paragraphs: text-heavy, the costlier kind of benign status to scan. */
function benignProse(length: number): string {
  const words = benchStatuses(200)
    .map((s) => s.media_descriptions?.[0] ?? s.spoiler_text ?? '')
    .join(' ');
  let prose = '';
  while (prose.length < length) prose += `<p>${words.slice(0, 2000)}</p>`;
  return prose.slice(0, length - 4) + '</p>';
}

interface Shape {
  readonly name: string;
  readonly filters: MatchableFilter[];
  readonly content: string;
}

const chain = (unit: string, count: number, wholeWord: boolean, step = 1) =>
  Array.from({ length: count }, (_, k) => [unit.repeat(1 + k * step), wholeWord] as const);

const SHAPES: Shape[] = [
  { name: 'HTML comments <!---->', filters: [], content: '<!---->'.repeat(LENGTH / 7) },
  { name: 'HTML comments <!--x--!>', filters: [], content: '<!--x--!>'.repeat(LENGTH / 9) },
  { name: 'keywords a, aa, ... a x 512 against a x 100,000', filters: [filterOf(1, chain('a', 512, false))], content: 'a'.repeat(LENGTH) },
  {
    name: 'the same chain, whole words, against runs of 513 a',
    filters: [filterOf(2, chain('a', 512, true))],
    content: `${'a'.repeat(513)} `.repeat(LENGTH / 514),
  },
  {
    name: '50 keywords of 500 CJK characters (10,000 distinct) against CJK text',
    filters: [
      filterOf(
        3,
        Array.from({ length: 50 }, (_, k) => [cjk(500, k + 1), false] as const),
      ),
    ],
    content: cjk(LENGTH, 99),
  },
  {
    name: 'keywords s, sss, ... s x 511 against ß x 100,000 (starts inside ß)',
    filters: [filterOf(4, chain('s', 256, false, 2))],
    content: 'ß'.repeat(LENGTH),
  },
];

function cpuMsOf(run: () => void): number {
  run(); // warm-up: the first run also compiles the code it takes
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

/**
 * The most CPU time the process spent between two turns of the event loop while `work` ran, in ms:
 * CPU time, not wall time, so that being descheduled on a busy machine does not count as holding it.
 */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = process.cpuUsage();
  let done = false;
  const tick = () => {
    const used = process.cpuUsage(last);
    longest = Math.max(longest, (used.user + used.system) / 1000);
    last = process.cpuUsage();
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  done = true;
  const used = process.cpuUsage(last);
  return Math.max(longest, (used.user + used.system) / 1000);
}

export async function adversarialRows(): Promise<void> {
  const now = Date.now();
  const html = benignHtml(LENGTH);
  const prose = benignProse(LENGTH);
  for (const shape of SHAPES) {
    const filters = [...benchFilters(), ...shape.filters];
    const started = performance.now();
    const compiled = CompiledFilters.compile(filters, now);
    const compileMs = performance.now() - started;
    const hold = await longestHold(() => CompiledFilters.compileInSlices(filters, now));
    // The hold of a paced compile is what other requests wait for; the compile is also timed at once.
    const status = (content: string): MatchableStatus => ({ id: '1', content });
    const hostileMs = cpuMsOf(() => compiled.match(status(shape.content), { now }));
    const htmlMs = cpuMsOf(() => compiled.match(status(html), { now }));
    const proseMs = cpuMsOf(() => compiled.match(status(prose), { now }));
    const benignMs = Math.max(htmlMs, proseMs);
    const memory = `${((compiled.size * 4) / 2 ** 20).toFixed(1)} MiB matcher, compiled in ${compileMs.toFixed(0)} ms, event loop held at most ${hold.toFixed(1)} ms`;
    printRow(
      `adversarial: ${shape.name} (${shape.content.length.toLocaleString('en-US')} characters; ${memory}), ms per status`,
      hostileMs.toFixed(2),
      `${benignMs.toFixed(2)} (the slower benign status of the same length: HTML ${htmlMs.toFixed(2)}, prose ${proseMs.toFixed(2)})`,
      hostileMs / benignMs,
      '<= 3',
    );
  }
}
