/**
 * The auditor queries by account, `events --account` and `filters --account --as-of`, on large logs:
 *   node --import tsx bench/audit-bench.ts [sizes=200000,1000000] [rounds=5]
 * In process, each query through the account index (ours) against the same query reading the whole
 * log (baseline: what it did before the index, and still does on a store without one). Then the real
 * CLI commands, each in its own process, against the start-up of `cli --version` alone.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { EventStore } from '../src/events/event-store.ts';
import { eventHistory } from '../src/events/event-history.ts';
import { SqliteEventStore } from '../src/events/sqlite-event-store.ts';
import { filtersAsOf } from '../src/projections/admin/filters-as-of.ts';
import { count, loadAverage, median, printRow } from './bench-rows.ts';
import { logFixture } from './log-fixture.ts';

const sizes = (process.argv[2] ?? '200000,1000000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 5);
const AS_OF = { time: new Date('2099-01-01T00:00:00Z') };

/** The same store without its account index: the queries then read the whole log. */
const withoutIndex = (store: SqliteEventStore): EventStore => ({
  appendToStream: (...args) => store.appendToStream(...args),
  readStream: (name) => store.readStream(name),
  readAll: (options) => store.readAll(options),
  onAppend: (listener) => store.onAppend(listener),
  close: () => store.close(),
});

async function ms(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const history = async (store: EventStore, accountId: string) => {
  let n = 0;
  for await (const event of eventHistory(store, { accountId })) n += event ? 1 : 0;
  return n;
};

process.stderr.write(`load average ${loadAverage()}\n`);
let last: { dir: string; accountId: string; events: number } | null = null;
for (const size of sizes) {
  const fixture = await logFixture(size);
  const store = new SqliteEventStore(`${fixture.dir}/events.sqlite`);
  const label = `${count(fixture.events)} events, ${fixture.accountEvents} of them the account's`;
  for (const [name, query] of [
    ['cli events --account (in process)', (s: EventStore) => history(s, fixture.accountId)],
    ['cli filters --account --as-of (in process)', (s: EventStore) => filtersAsOf(s, fixture.accountId, AS_OF)],
  ] as const) {
    const ours: number[] = [];
    for (let round = 0; round < rounds; round += 1) ours.push(await ms(() => query(store)));
    const baseline = await ms(() => query(withoutIndex(store)));
    printRow(`${name}, ${label}`, `${median(ours).toFixed(1)} ms`, `${baseline.toFixed(0)} ms (whole-log read)`, median(ours) / baseline, 'under 100 ms');
  }
  await store.close();
  if (last) rmSync(last.dir, { recursive: true, force: true });
  last = { dir: fixture.dir, accountId: fixture.accountId, events: fixture.events };
}

if (last) {
  const cli = (...args: string[]) =>
    ms(async () =>
      execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, DATA_DIR: last.dir }, stdio: 'ignore' }),
    );
  for (const [name, args] of [
    ['cli events --account (whole process)', ['events', '--account', last.accountId]],
    ['cli filters --account --as-of (whole process)', ['filters', '--account', last.accountId, '--as-of', AS_OF.time.toISOString()]],
  ] as const) {
    const [ours, startup]: [number[], number[]] = [[], []];
    for (let round = 0; round < 3; round += 1) {
      startup.push(await cli('--version'));
      ours.push(await cli(...args));
    }
    const extra = median(ours) - median(startup);
    printRow(
      `${name}, ${count(last.events)} events`,
      `${median(ours).toFixed(0)} ms (${extra.toFixed(0)} ms beyond start-up)`,
      `${median(startup).toFixed(0)} ms (cli --version: process start-up)`,
      median(ours) / median(startup),
      'under 100 ms beyond start-up',
    );
  }
  rmSync(last.dir, { recursive: true, force: true });
}
