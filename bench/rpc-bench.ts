import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadTestServiceDefinition, TEST_SERVICE_NAME } from '../src/rpc/package-definitions.ts';
import type { BenchServerKind, BenchServerMessage } from './bench-server.ts';
import type { LoadRequest, LoadResult } from './h2-load-client.ts';
import { h2loadAvailable, h2loadUnary } from './h2load-unary.ts';

/**
 * `npm run bench:rpc`: this project's TestService against a bare grpc-js echo server, side by side in
 * one run, driven by the same load client over loopback. Each server and the client run in their
 * own process; rounds alternate between the servers so drift hits both alike. Bounded: about
 * (1 + BENCH_ROUNDS x BENCH_SECONDS) x 2 servers x 2 cases seconds.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL = 0.9;
// h2load (Debian nghttp2-client) drives unary calls when installed, unless BENCH_CLIENT=node.
const USE_H2LOAD = process.env.BENCH_CLIENT !== 'node' && (await h2loadAvailable());

type Case = { readonly name: string; readonly unit: string; readonly mode: LoadRequest['mode']; readonly concurrency: number };
const CASES: Case[] = [
  { name: 'unary Echo, 100 in flight', unit: 'calls/s', mode: 'unary', concurrency: 100 },
  { name: 'DoubleEcho, 4 streams', unit: 'replies/s', mode: 'stream', concurrency: 4 },
];

const start = (file: string, args: string[] = []) =>
  fork(new URL(file, import.meta.url), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

async function ask<T>(child: ChildProcess, message?: unknown): Promise<T> {
  const done = new AbortController();
  const answered = once(child, 'message', { signal: done.signal });
  // A child that dies would otherwise leave the bench waiting for its answer forever.
  const died = once(child, 'exit', { signal: done.signal }).then(([code]) => {
    throw new Error(`bench child exited with ${code}`);
  });
  try {
    if (message !== undefined) child.send(message as string);
    return ((await Promise.race([answered, died])) as unknown[])[0] as T;
  } finally {
    done.abort(); // removes both listeners; race() has already settled, so the aborts go unobserved
  }
}

function echoFrame(): number[] {
  const service = loadTestServiceDefinition()[TEST_SERVICE_NAME] as ServiceDefinition;
  const message = service.Echo!.requestSerialize({ payload: 'p'.repeat(16) });
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return [...Buffer.concat([prefix, message])];
}

type Sample = {
  readonly perSecond: number;
  readonly cpuMicrosPerOp: number;
  /** Share of one core each side used: whichever is near 100% was the limit. */
  readonly serverBusy: number;
  readonly clientBusy: number;
};

async function measure(client: ChildProcess, server: ChildProcess, target: string, testCase: Case, seconds: number, warmUp = false): Promise<Sample> {
  const cpuBefore = await ask<{ cpuMicros: number }>(server, 'cpu');
  const request: LoadRequest = { mode: testCase.mode, target, seconds, concurrency: testCase.concurrency, frame: echoFrame() };
  // The warm-up always uses our own client, which checks every grpc-status.
  const result =
    USE_H2LOAD && !warmUp && request.mode === 'unary'
      ? await h2loadUnary(target, seconds, request.concurrency, request.frame)
      : await ask<LoadResult>(client, request);
  const cpuAfter = await ask<{ cpuMicros: number }>(server, 'cpu');
  if (result.failures > 0) throw new Error(`${testCase.name} against ${target}: ${result.failures} failed calls or lost replies`);
  const serverCpu = cpuAfter.cpuMicros - cpuBefore.cpuMicros;
  const wallMicros = result.seconds * 1e6;
  return {
    perSecond: result.operations / result.seconds,
    cpuMicrosPerOp: serverCpu / result.operations,
    serverBusy: serverCpu / wallMicros,
    clientBusy: result.clientCpuMicros === undefined ? Number.NaN : result.clientCpuMicros / wallMicros,
  };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const percent = (share: number) => (Number.isNaN(share) ? 'n/a' : `${(share * 100).toFixed(0)}%`);

function describe(rounds: Sample[], unit: string): string {
  const perSecond = mean(rounds.map((s) => s.perSecond))
    .toFixed(0)
    .padStart(7);
  const cpu = mean(rounds.map((s) => s.cpuMicrosPerOp)).toFixed(1);
  const busy = `server ${percent(mean(rounds.map((s) => s.serverBusy)))} / client ${percent(mean(rounds.map((s) => s.clientBusy)))} of a core`;
  return `${perSecond} ${unit}  ${cpu} server CPU µs/op  ${busy}  rounds: ${rounds.map((s) => s.perSecond.toFixed(0)).join(', ')}`;
}

async function main(): Promise<void> {
  const kinds: BenchServerKind[] = ['bare', 'full'];
  const servers = new Map(kinds.map((kind) => [kind, start('./bench-server.ts', [kind])]));
  const targets = new Map<BenchServerKind, string>();
  for (const [kind, server] of servers) targets.set(kind, ((await ask<BenchServerMessage>(server)) as { target: string }).target);
  const client = start('./h2-load-client.ts');
  const load = loadavg()[0]!.toFixed(2);
  // Other work on the machine moves these figures more than anything the servers do: say how busy it was.
  console.log(`rpc bench: ${ROUNDS} rounds x ${SECONDS} s per server and case, loopback, Node ${process.version}, load average ${load}`);
  const ratios: number[] = [];
  try {
    for (const testCase of CASES) {
      const samples = new Map<BenchServerKind, Sample[]>(kinds.map((kind) => [kind, []]));
      for (const kind of kinds) await measure(client, servers.get(kind)!, targets.get(kind)!, testCase, 1, true);
      for (let round = 0; round < ROUNDS; round++) {
        for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
          samples.get(kind)!.push(await measure(client, servers.get(kind)!, targets.get(kind)!, testCase, SECONDS));
        }
      }
      const [bare, full] = kinds.map((kind) => samples.get(kind)!);
      const ratio = mean(full!.map((s) => s.perSecond)) / mean(bare!.map((s) => s.perSecond));
      ratios.push(ratio);
      const driver = USE_H2LOAD && testCase.mode === 'unary' ? 'h2load' : 'node:http2 client';
      console.log(`\n${testCase.name} (load from ${driver})`);
      for (const kind of kinds) console.log(`  ${kind.padEnd(5)} ${describe(samples.get(kind)!, testCase.unit)}`);
      // CPU per operation hardly depends on how busy the machine is, so it backs up a noisy throughput ratio.
      const cpuRatio = mean(bare!.map((s) => s.cpuMicrosPerOp)) / mean(full!.map((s) => s.cpuMicrosPerOp));
      const verdict = ratio >= GOAL ? '(goal >= 0.9 met)' : '(BELOW the 0.9 goal)';
      console.log(`  ratio full/bare: ${ratio.toFixed(3)} ${verdict}; server efficiency (bare CPU/op / full CPU/op): ${cpuRatio.toFixed(3)}`);
    }
  } finally {
    client.disconnect();
    for (const server of servers.values()) server.disconnect();
  }
  console.log(`\nratios: ${CASES.map((c, i) => `${c.name}: ${ratios[i]!.toFixed(3)}`).join('; ')}`);
}

await main();
