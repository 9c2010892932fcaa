/**
 * Runs EventStore-Client-NodeJS's own integration tests, at the version this project uses, for the calls
 * the EventStoreDB adapter makes, against the protocol STAND-IN (test/support/esdb-stand-in.ts, not a
 * server), and prints the tally:
 *   node --import tsx test/official-client/run.ts <path to a clone of EventStore/EventStore-Client-NodeJS>
 * The tests are taken from that clone at run time (git show <tag>:<file>), never committed here. The one
 * change made to them: "@test-utils", which starts a docker container, is test/official-client/harness.ts,
 * which starts the stand-in, and a first line installs jest's globals on mocha (test/official-client/jest-globals.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { judge, KNOWN_FAILURES } from './known-failures.ts';

const TAG = 'v6.2.1';
/** Under packages/test/src; a streams/ test is named by its file alone, as the lists have it. */
const FILES = [
  'streams/appendToStream.test.ts',
  'streams/appendToStream-batch-append.test.ts',
  'streams/appendToStream-errors.test.ts',
  'streams/readStream.test.ts',
  'streams/readAll.test.ts',
  'streams/subscribeToAll.test.ts',
  'streams/subscribeToAll-filters.test.ts',
  // Against the stand-in cluster (test/support/esdb-stand-in-cluster.ts), through harness.ts's createTestCluster.
  'connection/cluster.test.ts',
  'connection/not-leader.test.ts',
  'connection/reconnect/NotLeaderError.test.ts',
  'connection/reconnect/UnavailableError.test.ts',
  'connection/reconnect/all-nodes-down.test.ts',
  'connection/reconnect/mid-stream.test.ts',
  'connection/reconnect/no-reconnection.test.ts',
  'connection/deadline/deadline-effects.test.ts',
];

const clone = process.argv[2] ?? process.env.ESDB_CLIENT_REPO;
if (!clone) {
  process.stderr.write('usage: test/official-client/run.ts <path to a clone of EventStore/EventStore-Client-NodeJS>\n');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Inside node_modules (ignored by git), so the copies resolve @eventstore/db-client as this project does.
// OFFICIAL_CLIENT_WORK: elsewhere, for the runner's own test (test/official-client/runner-exit.spec.ts).
const work = process.env.OFFICIAL_CLIENT_WORK ?? join(root, 'node_modules', '.cache', 'official-client-tests');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const harness = join(root, 'test', 'official-client', 'harness.ts');
const copies = FILES.map((file) => {
  const source = execFileSync('git', ['-C', clone, 'show', `${TAG}:packages/test/src/${file}`], { encoding: 'utf8' });
  const target = join(work, file.replace(/^streams\//, ''));
  mkdirSync(dirname(target), { recursive: true });
  const globals = `import { installJestGlobals } from ${JSON.stringify(join(root, 'test', 'official-client', 'jest-globals.ts'))};\ninstallJestGlobals();\n`;
  writeFileSync(target, globals + source.replaceAll('"@test-utils"', JSON.stringify(harness)));
  return target;
});

const report = join(work, 'report.json');
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--reporter', 'json', '--reporter-option', `output=${report}`, ...copies],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
);
interface MochaTest {
  fullTitle: string;
  file: string;
  err: { message?: string };
}
const named = (test: MochaTest) => `${test.file.replace(`${work}/`, '')}: ${test.fullTitle}`;
let result: { stats: { passes: number; failures: number; pending: number }; tests: MochaTest[]; failures: MochaTest[]; pending: MochaTest[] };
try {
  result = JSON.parse(readFileSync(report, 'utf8')) as typeof result;
} catch (error) {
  process.stderr.write(`no mocha report (mocha exited ${String(run.status ?? run.signal)}): ${String(error)}\n`);
  process.exit(1);
}
process.stdout.write(
  `\nofficial client tests (${TAG}) against the EventStoreDB stand-in: ${result.stats.passes} passed, ${result.stats.failures} failed, ${result.stats.pending} skipped\n`,
);
for (const failure of result.failures) {
  const name = named(failure);
  const why = KNOWN_FAILURES[name];
  process.stdout.write(`  ${why ? 'known' : 'FAILED'} ${name}\n    ${(failure.err.message ?? '').split('\n')[0]}\n${why ? `    (listed: ${why})\n` : ''}`);
}
for (const pending of result.pending) process.stdout.write(`  skipped ${named(pending)}\n`);
const tally = judge(result.failures.map(named), result.pending.map(named), result.tests.map(named));
for (const name of tally.stale) process.stdout.write(`  STALE listed failure now passes: ${name}\n`);
for (const name of tally.unexpectedSkips) process.stdout.write(`  UNEXPECTED skip: ${name}\n`);
// Non-zero on any failure or skip not on the explained lists (known-failures.ts), a stale list, no tests, or a mocha crash.
const bad = tally.unexpected.length + tally.stale.length + tally.unexpectedSkips.length;
if (run.status === null || result.stats.passes === 0 || bad > 0) {
  process.stdout.write(`official client tests: ${bad} unexplained result(s); exit 1\n`);
  process.exit(1);
}
process.stdout.write('official client tests: every failure is on the explained list (test/official-client/known-failures.ts)\n');
