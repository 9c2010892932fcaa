/**
 * The service with a large event log against the same on an empty one:
 *   node --import tsx bench/scale-bench.ts [events=1000000]
 * Rebuilds the read models of the log (`projections rebuild`, against a raw scan of it), then starts the
 * service (compiled, as `npm start` runs it) on it and on an empty data directory, in turns, each in its own process: start-up to
 * /health 200 (read models current: nothing is replayed at boot), RSS after 10 s of GET load, and the
 * throughput of a POST followed by its DELETE on one account (wrk-post-delete.lua), every round. wrk (/usr/bin/wrk) is the load client, in its own process, with 64 connections.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { SqliteAccountStore } from '../src/accounts/sqlite-account-store.ts';
import { allowUnleasedIds } from '../src/shared/ids.ts';
import { benchDir, logFixture } from './log-fixture.ts';
import { BENCH_FILTER } from './bench-filter.ts';
import { buildDist, count, loadAverage, markProjected, median, rawScan, rebuild, printRow } from './bench-rows.ts';
import { runWrk } from './wrk-client.ts';

allowUnleasedIds();
const events = Number(process.argv[2] ?? 1_000_000);
const WRK = '/usr/bin/wrk';

interface Subject {
  readonly dir: string;
  readonly token: string;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts the service; resolves once /health answers 200, with the milliseconds that took. */
async function start(subject: Subject): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  // As production starts it (`npm start`): the compiled files with plain node, built before the first start.
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    env: { RATE_LIMITS: 'off', ...process.env, DATA_DIR: subject.dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    // Polling is the measurement here: the first 200 is the end of start-up.
    const ok = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, url, ms: Number(process.hrtime.bigint() - started) / 1e6 };
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    await delay(5);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const rssMb = (child: ChildProcess) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;

function wrk(url: string, token: string, seconds: number): number {
  const args = ['-t2', '-c64', `-d${seconds}s`, '-H', `Authorization: Bearer ${token}`, `${url}/api/v2/filters`];
  const out = execFileSync(WRK, args).toString();
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
}

buildDist();
const fixture = await logFixture(events);
await markProjected(fixture.dir, fixture.lastPosition);
const raw = rawScan(fixture.dir);
const rebuilt = rebuild(fixture.dir);
printRow(
  `projections rebuild, ${count(fixture.events)} events`,
  `${count(rebuilt.rate)} events/s (${count(rebuilt.perCpuSecond)} events per CPU-second of the whole process)`,
  `${count(raw)} events/s (raw scan)`,
  rebuilt.rate / raw,
  'at least 0.3',
);

const empty = benchDir();
const accounts = SqliteAccountStore.inDataDir(empty);
const account = await accounts.createAccount('bench');
const emptyToken = await accounts.createToken(account.id, ['read:filters', 'write:filters']);
await accounts.close();
const subjects = { large: { dir: fixture.dir, token: fixture.token }, empty: { dir: empty, token: emptyToken } };

const startup = { large: [] as number[], empty: [] as number[] };
const rss = { large: 0, empty: 0 };
const posts = { large: [] as number[], empty: [] as number[] };
process.stderr.write(`load average ${loadAverage()}\n`);
for (let round = 0; round < 3; round += 1) {
  for (const name of ['empty', 'large'] as const) {
    const { child, url, ms } = await start(subjects[name]);
    startup[name].push(ms);
    if (round === 0) {
      wrk(url, subjects[name].token, 10);
      rss[name] = rssMb(child);
    }
    // A create then its delete, on the one account: it stays below its limit of 1,000 filters, and any
    // answer that is not 2xx fails the run (a 422 at the limit would be measured as a fast write).
    const args = [JSON.stringify(BENCH_FILTER), subjects[name].token];
    posts[name].push((await runWrk({ url: `${url}/api/v2/filters`, script: 'wrk-post-delete.lua', args, seconds: 5, connections: 64 })).requestsPerSecond);
    await stop(child);
  }
}
process.stderr.write(`load average ${loadAverage()}\n`);
const e = count(fixture.events);
printRow(
  `start-up to /health 200, ${e} events`,
  `${median(startup.large).toFixed(0)} ms`,
  `${median(startup.empty).toFixed(0)} ms (empty log)`,
  median(startup.large) / median(startup.empty),
  'under 2000 ms',
);
printRow(
  `RSS after 10 s of GET load, ${e} events`,
  `${rss.large.toFixed(0)} MB`,
  `${rss.empty.toFixed(0)} MB (empty log)`,
  rss.large / rss.empty,
  'under 200 MB',
);
printRow(
  `POST then DELETE /api/v2/filters, 64 connections, ${e} events (3 rounds alternated)`,
  `${count(median(posts.large))} writes/s`,
  `${count(median(posts.empty))} writes/s (empty log)`,
  median(posts.large) / median(posts.empty),
  'at least 0.9',
);
rmSync(fixture.dir, { recursive: true, force: true });
rmSync(empty, { recursive: true, force: true });
