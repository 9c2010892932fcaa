/**
 * What counting costs: GET /api/v2/filters (10 filters x 3 keywords) against two API processes started
 * alike, one with RATE_LIMITS=on (the default; counters in rate-limits.sqlite, a limit of 1,000,000 no run reaches) and
 * one with RATE_LIMITS=off, measured side by side in the same run by autocannon (in this process, not
 * in a server's), rounds alternating (off, on, on, off, ...) so that a change of load on the machine falls
 * on both. Reports the medians, their ratio (goal: at least 0.90), the server CPU per request, the worst
 * event-loop stall of each server during its measured rounds, and the load average.
 *   npm run bench:rate-limits   BENCH_SECONDS per round (default 5), BENCH_ROUNDS per side (default 4),
 *                               BENCH_CONNECTIONS (default 32)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { buildDist, loadAverage, median, row } from './bench-rows.ts';
import type { SeededApi } from './http-bench-seed.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Server {
  readonly process: ChildProcess;
  readonly seeded: SeededApi;
}

async function server(env: Record<string, string>): Promise<Server> {
  const child = fork(new URL('./http-api-server.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  const [seeded] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error('the API exited')))])) as [SeededApi];
  return { process: child, seeded };
}

async function ask<T>(target: Server, question: 'cpu' | 'stall'): Promise<T> {
  target.process.send(question);
  const [answer] = (await once(target.process, 'message')) as [T];
  return answer;
}

interface Sample {
  readonly requestsPerSecond: number;
  readonly cpuMicrosPerRequest: number;
  readonly p99Ms: number;
}

async function measure(target: Server, durationSeconds: number): Promise<Sample> {
  const before = await ask<{ cpuMicros: number }>(target, 'cpu');
  const result = await autocannon({
    url: `${target.seeded.url}/api/v2/filters`,
    headers: { authorization: `Bearer ${target.seeded.tokens.main!}` },
    connections,
    duration: durationSeconds,
  });
  const used = (await ask<{ cpuMicros: number }>(target, 'cpu')).cpuMicros - before.cpuMicros;
  // A 429 or a 503 would measure a refusal, not the listing: such a run is no measurement.
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`FAILED: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
  const answered = result.requests.total;
  return { requestsPerSecond: answered / result.duration, cpuMicrosPerRequest: used / answered, p99Ms: result.latency.p99 };
}

const describe = (samples: readonly Sample[]) => {
  const rate = median(samples.map((s) => s.requestsPerSecond));
  const cpu = median(samples.map((s) => s.cpuMicrosPerRequest));
  const p99 = median(samples.map((s) => s.p99Ms));
  return { rate, cpu, text: `${rate.toFixed(0)} req/s (p99 ${p99.toFixed(1)} ms, server CPU ${cpu.toFixed(0)} us per request)` };
};

buildDist();
const off = await server({ RATE_LIMITS: 'off' });
const on = await server({ RATE_LIMITS: 'on', RATE_LIMIT_AUTHENTICATED_API: '1000000' });
try {
  console.log(
    `rate limits: autocannon, ${connections} connections, ${seconds} s per round, ${rounds} rounds per side alternating, load average ${loadAverage()}`,
  );
  await measure(off, 1);
  await measure(on, 1);
  const samples = { off: [] as Sample[], on: [] as Sample[] };
  // The worst stall of each server over its measured rounds: the server without counting shows what the machine's load alone causes.
  const worstStallMs = { off: 0, on: 0 };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const side of order) {
      const target = side === 'on' ? on : off;
      await ask(target, 'stall');
      samples[side].push(await measure(target, seconds));
      worstStallMs[side] = Math.max(worstStallMs[side], (await ask<{ stallMs: number }>(target, 'stall')).stallMs);
      console.log(`  round ${round + 1} ${side}: ${samples[side].at(-1)!.requestsPerSecond.toFixed(0)} req/s, load ${loadAverage()}`);
    }
  }
  const [withLimits, without] = [describe(samples.on), describe(samples.off)];
  console.log(
    `${row('GET /api/v2/filters with rate limits on (counted in rate-limits.sqlite)', withLimits.text, `rate limits off ${without.text}`, withLimits.rate / without.rate, 'at least 0.90')}, CPU per request ratio ${(withLimits.cpu / without.cpu).toFixed(2)}, worst event-loop stall ${worstStallMs.on.toFixed(1)} ms counting, ${worstStallMs.off.toFixed(1)} ms without, load ${loadAverage()}`,
  );
} finally {
  for (const target of [off, on]) {
    target.process.kill('SIGTERM');
    await once(target.process, 'exit');
    rmSync(target.seeded.dataDir, { recursive: true, force: true });
  }
}
