/**
 * Filter matching throughput: the compiled matcher against a naive baseline that builds every filter's
 * pattern anew for each status, in this process on one core (statuses per CPU second); then NATS
 * request-reply in batches of 100 against a responder that does everything but the matching, with the
 * servers in a child process. Both measured alternately in the same run; loopback only, bounded.
 * Then the adversarial rows (bench/match-adversarial.ts): hostile statuses and filter sets, each as a
 * ratio to a benign status of the same length.
 *   npm run bench:match     (BENCH_SECONDS per round, default 2; BENCH_ROUNDS, default 3; NATS_URL)
 */
import { connect, type NatsConnection } from 'nats';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { CompiledFilters } from '../src/matching/compiled-filters.ts';
import { adversarialRows } from './match-adversarial.ts';
import { benchFilters, benchStatuses } from './match-bench-data.ts';
import { naiveMatch } from './naive-matcher.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const BATCH = 100;
const IN_FLIGHT = 16;

const line = (name: string, ours: number, baseline: number, goal: string) =>
  console.log(`${name}: ours ${Math.round(ours)}, baseline ${Math.round(baseline)}, ratio ${(ours / baseline).toFixed(1)} (goal ${goal})`);

/** Statuses per CPU second of `match` over the statuses, cycling until `seconds` of wall time have passed. */
function perCpuSecond<T>(statuses: readonly T[], match: (status: T) => unknown): number {
  const started = Date.now();
  const cpu = process.cpuUsage();
  let done = 0;
  while (Date.now() - started < seconds * 1000) {
    for (let i = 0; i < 500; i++) match(statuses[(done + i) % statuses.length]!);
    done += 500;
  }
  const used = process.cpuUsage(cpu);
  return done / ((used.user + used.system) / 1e6);
}

function inProcess(): void {
  const now = Date.now();
  const filters = benchFilters();
  const statuses = benchStatuses(5000, filters);
  const compiled = CompiledFilters.compile(filters, now);
  for (const status of statuses) {
    const ours = JSON.stringify(compiled.match(status, { now }));
    if (ours !== JSON.stringify(naiveMatch(filters, status, now))) throw new Error(`results differ for status ${status.id}`);
  }
  const matched = statuses.filter((s) => compiled.match(s, { now }).length > 0).length;
  console.log(`in-process: ${statuses.length} statuses (${matched} with a FilterResult), both matchers agree on every one`);
  let ours = 0;
  let baseline = 0;
  for (let round = 0; round < rounds; round++) {
    baseline += perCpuSecond(statuses, (s) => naiveMatch(filters, s, now));
    ours += perCpuSecond(statuses, (s) => compiled.match(s, { now }));
  }
  line('in-process matcher, statuses/s on one core', ours / rounds, baseline / rounds, 'ours >= 200000, ratio >= 10');
}

/** CPU seconds a process has used so far (Linux), or NaN. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface NatsRound {
  readonly perSecond: number;
  /** Statuses per CPU second of the server process: what one core of it would do, however busy the machine. */
  readonly perServerCpuSecond: number;
}

/** Statuses/s through request-reply on `subject`, IN_FLIGHT requests of BATCH statuses kept going. */
async function throughNats(client: NatsConnection, subject: string, batches: readonly Uint8Array[], serverPid: number): Promise<NatsRound> {
  const started = Date.now();
  const serverCpu = cpuSecondsOf(serverPid);
  let answered = 0;
  const worker = async (offset: number) => {
    for (let i = offset; Date.now() - started < seconds * 1000; i += IN_FLIGHT) {
      const reply = await client.request(subject, batches[i % batches.length], { timeout: 10_000 });
      if (reply.data[2] !== 0x72 /* {"r(esults)" */) throw new Error(`unexpected reply: ${reply.string().slice(0, 200)}`);
      answered += BATCH;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, k) => worker(k)));
  return { perSecond: answered / ((Date.now() - started) / 1000), perServerCpuSecond: answered / (cpuSecondsOf(serverPid) - serverCpu) };
}

async function nats(): Promise<void> {
  let client: NatsConnection;
  try {
    client = await connect({ servers: natsUrl, name: 'content-filters-bench-client' });
  } catch {
    console.log(`NATS request-reply: skipped, no NATS server at ${natsUrl} (set NATS_URL)`);
    return;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./match-bench-servers.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NATS_URL: natsUrl },
  });
  try {
    // A servers process that dies before its ready line must end the bench, not leave it waiting.
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`the bench servers process ended (exit ${String(code)}) before it was ready`);
    });
    const [ready] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), exited])) as [string];
    exited.catch(() => {});
    const { subject, echoSubject, accountId } = JSON.parse(ready) as { subject: string; echoSubject: string; accountId: string };
    const encoder = new TextEncoder();
    const statuses = benchStatuses(5000);
    const batches = Array.from({ length: statuses.length / BATCH }, (_, b) =>
      encoder.encode(JSON.stringify({ statuses: statuses.slice(b * BATCH, (b + 1) * BATCH) })),
    );
    const check = JSON.parse((await client.request(`${subject}.${accountId}`, batches[0], { timeout: 10_000 })).string()) as { results: object };
    const compiled = CompiledFilters.compile(benchFilters(), Date.now());
    const expected = Object.fromEntries(statuses.slice(0, BATCH).map((s) => [s.id, compiled.match(s, { now: Date.now() })]));
    const strip = (results: object) =>
      JSON.stringify(
        Object.values(results).map((list: { keyword_matches: unknown; status_matches: unknown }[]) => list.map((r) => [r.keyword_matches, r.status_matches])),
      );
    if (strip(check.results) !== strip(expected)) throw new Error("the service's NATS answer differs from the in-process matcher");
    console.log(`NATS: ${batches.length} batches of ${BATCH} statuses (${(batches[0]!.length / 1024).toFixed(0)} KiB each), ${IN_FLIGHT} requests in flight`);
    const ours: NatsRound[] = [];
    const baseline: NatsRound[] = [];
    for (let round = 0; round < rounds; round++) {
      baseline.push(await throughNats(client, `${echoSubject}.${accountId}`, batches, child.pid!));
      ours.push(await throughNats(client, `${subject}.${accountId}`, batches, child.pid!));
    }
    const mean = (all: NatsRound[], key: keyof NatsRound) => all.reduce((sum, r) => sum + r[key], 0) / all.length;
    const name = `NATS request-reply in batches of ${BATCH}`;
    line(`${name}, statuses/s`, mean(ours, 'perSecond'), mean(baseline, 'perSecond'), 'ours >= 50000');
    line(
      `${name}, statuses per server CPU second`,
      mean(ours, 'perServerCpuSecond'),
      mean(baseline, 'perServerCpuSecond'),
      'what one core of the server does, whatever else runs',
    );
    console.log('(NATS baseline: a responder in the same server process that parses each request and answers [] without matching)');
  } finally {
    child.kill('SIGTERM');
    await client.close();
  }
}

console.log(`${seconds}s per round, ${rounds} rounds, baseline and ours alternating; load average ${loadavg()[0]!.toFixed(2)} on this machine`);
inProcess();
await adversarialRows();
await nats();
