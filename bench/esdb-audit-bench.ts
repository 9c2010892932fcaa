/**
 * The auditor queries by account on the EventStoreDB adapter, against the gRPC protocol STAND-IN (not a
 * server) holding a large log, in a process of its own (bench/esdb-stand-in-log-process.ts):
 *   node --import tsx bench/esdb-audit-bench.ts [events=1000000] [rounds=9]
 * Each query runs in this process through the adapter (gRPC over loopback), through the account streams
 * (ours) against the same query reading the whole of $all (baseline: what it did before them).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EsdbEventStore } from '../src/events/esdb-event-store.ts';
import type { EventStore } from '../src/events/event-store.ts';
import { eventHistory } from '../src/events/event-history.ts';
import { filtersAsOf } from '../src/projections/admin/filters-as-of.ts';
import { count, loadAverage, median, printRow } from './bench-rows.ts';

const size = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 9);
const AS_OF = { time: new Date('2099-01-01T00:00:00Z') };

async function ms(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The adapter without its account streams: the queries then read the whole of $all. */
const withoutIndex = (store: EsdbEventStore): EventStore => ({
  appendToStream: (...args) => store.appendToStream(...args),
  readStream: (name) => store.readStream(name),
  readAll: (options) => store.readAll(options),
  onAppend: (listener) => store.onAppend(listener),
  close: () => store.close(),
});

process.stderr.write(`load average ${loadAverage()}\n`);
const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./esdb-stand-in-log-process.ts', import.meta.url)), String(size)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const log = await new Promise<{ url: string; accountId: string; records: number; accountEvents: number }>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!) as never);
    });
    child.once('exit', (code) => reject(new Error(`the stand-in process ended (${code})`)));
  });
  const store = EsdbEventStore.connect(log.url);
  const history = async (s: EventStore) => {
    let n = 0;
    for await (const event of eventHistory(s, { accountId: log.accountId })) n += event ? 1 : 0;
    return n;
  };
  const label = `${count(log.records)} records on the EventStoreDB stand-in, ${log.accountEvents} of them the account's`;
  for (const [name, query] of [
    ['esdb events --account (in process)', history],
    ['esdb filters --account --as-of (in process)', (s: EventStore) => filtersAsOf(s, log.accountId, AS_OF)],
  ] as const) {
    const ours: number[] = [];
    await query(store);
    for (let round = 0; round < rounds; round += 1) ours.push(await ms(() => query(store)));
    if (process.env.BENCH_VERBOSE) process.stderr.write(`${name}: ${ours.map((t) => t.toFixed(0)).join(' ')} ms\n`);
    const baseline = process.env.BENCH_NO_BASELINE ? NaN : await ms(() => query(withoutIndex(store)));
    printRow(`${name}, ${label}`, `${median(ours).toFixed(1)} ms`, `${baseline.toFixed(0)} ms (whole-$all read)`, median(ours) / baseline, 'under 100 ms');
  }
  await store.close();
} finally {
  child.kill();
}
