/**
 * The filters API against bare Koa, measured in the same run: wrk as the load client (its own process),
 * the API and the bare Koa app each in a process of their own, rounds interleaved (baseline, then ours),
 * the median of the rounds reported. Loopback only; writes only under os.tmpdir().
 *   npm run bench:http   BENCH_SECONDS per round (default 3), BENCH_ROUNDS (default 3),
 *                        BENCH_CONNECTIONS (default 64), BENCH_ONLY (a regular expression on case names),
 *                        BENCH_PROFILE=<dir>: the API process writes a V8 CPU profile of the measured part there,
 *                        BENCH_BEFORE_DIST=<dir>: another build of the service (e.g. main's dist/) measured in
 *                        the same rounds, as a "before" column.
 * POST and PUT spread their writes over WRITE_ACCOUNTS accounts; any answer that is not 2xx fails the run.
 * The API runs as users run it, rate limits on (http-api-server.ts); a second API process with
 * RATE_LIMITS=off gives the GET row without the counting.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_FILTER } from './bench-filter.ts';
import { buildDist, loadAverage, median, row } from './bench-rows.ts';
import { LIST_SIZES, POST_SIZES, type SeededApi } from './http-bench-seed.ts';
import { runWrk, type WrkResult, type WrkRun } from './wrk-client.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const defaultConnections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const scratch = mkdtempSync(join(tmpdir(), 'cf-bench-run-'));

async function child<T>(
  file: string,
  execArgv: string[],
  logTo: string | null,
  message?: unknown,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ process: ChildProcess; said: T }> {
  const stdout = logTo ? (await import('node:fs')).openSync(logTo, 'a') : 'ignore';
  const started = fork(new URL(file, import.meta.url), {
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
    env,
  });
  if (message !== undefined) started.send(message as object);
  const [said] = (await Promise.race([once(started, 'message'), once(started, 'exit').then(() => Promise.reject(new Error(`${file} exited`)))])) as [T];
  return { process: started, said };
}

interface Case {
  readonly name: string;
  readonly goal: string;
  readonly ours: Omit<WrkRun, 'seconds' | 'connections'>;
  readonly baseline: Omit<WrkRun, 'seconds' | 'connections'>;
  /** The same run against the "before" build (BENCH_BEFORE_DIST), where there is one. */
  readonly before?: Omit<WrkRun, 'seconds' | 'connections'>;
  /** The p99 goal, as a multiple of the baseline's p99. */
  readonly p99Within?: number;
  /** Which API process answers `ours`: the default one (rate limits on) or the one with RATE_LIMITS=off. */
  readonly oursServer?: 'off';
  /** Which baseline process answers `baseline`: bare Koa (default) or the bare durable write (bare-durable-server.ts). */
  readonly baselineServer?: 'koa' | 'durable';
  /** Connections of this case, instead of BENCH_CONNECTIONS. */
  readonly connections?: number;
  /** What the baseline is called in the printed row. */
  readonly baselineName?: string;
}

// The API runs from dist/, as `npm start` does.
buildDist();
const api = await child<SeededApi>('./http-api-server.ts', [], join(scratch, 'api.log'));
const { url, tokens } = api.said;
const beforeDist = process.env.BENCH_BEFORE_DIST;
const older = beforeDist
  ? await child<SeededApi>('./http-api-server.ts', [], join(scratch, 'api-before.log'), undefined, { ...process.env, BENCH_DIST: beforeDist })
  : null;
const unlimited = await child<SeededApi>('./http-api-server.ts', [], join(scratch, 'api-off.log'), undefined, { ...process.env, RATE_LIMITS: 'off' });
/** Writes the lines to a file of the scratch directory, for a wrk script to read. */
const linesFile = (name: string, lines: readonly string[]): string => {
  const path = join(scratch, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};
const writes = (seeded: SeededApi, side: string) => ({
  tokens: linesFile(`post-tokens-${side}.txt`, seeded.postTokens),
  targets: linesFile(`put-targets-${side}.txt`, seeded.putTargets),
});
const ourWrites = writes(api.said, 'ours');
const olderWrites = older ? writes(older.said, 'before') : null;
const listing = async (path: string, token: string) => (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })).text();
const bodies: Record<string, string> = { '/v2': await listing('/api/v2/filters', tokens.main!), '/v1': await listing('/api/v1/filters', tokens.main!) };
for (const size of LIST_SIZES) bodies[`/size${size}`] = await listing('/api/v2/filters', tokens[`size${size}`]!);
const bare = await child<{ url: string }>('./bare-koa-server.ts', [], null, bodies);
const bareUrl = bare.said.url;
const durable = await child<{ url: string }>('./bare-durable-server.ts', [], null);
const durableUrl = durable.said.url;

const get = (path: string, token: string) => ({ url: `${url}${path}`, script: 'wrk-static.lua', args: ['GET', token, ''] }) as const;
const bareGet = (path: string) => ({ url: `${bareUrl}${path}`, script: 'wrk-static.lua', args: ['GET', '', ''] }) as const;
const filterBody = JSON.stringify(BENCH_FILTER);
/** Each POST then DELETE case's seeded account size, by name, for trimmed(). */
const postSizeOf = new Map<string, number>();
const postSized = (size: number, c: Case): Case => {
  postSizeOf.set(c.name, size);
  return c;
};
const postDelete = (seeded: SeededApi, size: number) =>
  ({ url: `${seeded.url}/api/v2/filters`, script: 'wrk-post-delete.lua', args: [filterBody, seeded.postSizeTokens[`post${size}`]!] }) as const;
// Issue 33's goals: GET at least half of bare Koa with p99 at most twice its; writes half of the bare durable write.
const cases: Case[] = [
  {
    name: 'GET /api/v2/filters (10 filters x 3 keywords), rate limits on (the default)',
    goal: '0.5, p99 at most 2x',
    p99Within: 2,
    ours: get('/api/v2/filters', tokens.main!),
    baseline: bareGet('/v2'),
    ...(older ? { before: { ...get('/api/v2/filters', older.said.tokens.main!), url: `${older.said.url}/api/v2/filters` } } : {}),
  },
  {
    name: 'GET /api/v2/filters (10 filters x 3 keywords), rate limits off',
    goal: '0.5, p99 at most 2x',
    p99Within: 2,
    oursServer: 'off',
    ours: { ...get('/api/v2/filters', unlimited.said.tokens.main!), url: `${unlimited.said.url}/api/v2/filters` },
    baseline: bareGet('/v2'),
  },
  {
    name: 'GET /api/v1/filters (30 keyword records)',
    goal: '0.75, p99 at most 1.5x',
    p99Within: 1.5,
    ours: get('/api/v1/filters', tokens.main!),
    baseline: bareGet('/v1'),
  },
  {
    name: 'POST /api/v2/filters (3 keywords, durable)',
    goal: 'none: bare Koa is no limit for a durable write (see the rows against the bare durable write)',
    ours: { url: `${url}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, ourWrites.tokens] },
    baseline: { url: `${bareUrl}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, ourWrites.tokens] },
    ...(older && olderWrites
      ? { before: { url: `${older.said.url}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, olderWrites.tokens] } }
      : {}),
  },
  {
    name: 'PUT /api/v2/filters/:id adding a keyword (durable)',
    goal: 'none: bare Koa is no limit for a durable write (see the rows against the bare durable write)',
    ours: { url: `${url}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [ourWrites.targets] },
    baseline: { url: `${bareUrl}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [ourWrites.targets] },
    ...(older && olderWrites ? { before: { url: `${older.said.url}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [olderWrites.targets] } } : {}),
  },
  ...[16, 64].flatMap((n): Case[] => [
    {
      name: `POST /api/v2/filters (3 keywords) against the bare durable write, ${n} connections`,
      goal: '0.5',
      connections: n,
      baselineServer: 'durable',
      baselineName: 'bare durable write',
      ours: { url: `${url}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, ourWrites.tokens] },
      baseline: { url: `${durableUrl}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, ourWrites.tokens] },
      ...(older && olderWrites
        ? { before: { url: `${older.said.url}/api/v2/filters`, script: 'wrk-post-many.lua', args: [filterBody, olderWrites.tokens] } }
        : {}),
    },
    {
      name: `PUT /api/v2/filters/:id adding a keyword against the bare durable write, ${n} connections`,
      goal: '0.5',
      connections: n,
      baselineServer: 'durable',
      baselineName: 'bare durable write',
      ours: { url: `${url}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [ourWrites.targets] },
      baseline: { url: `${durableUrl}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [ourWrites.targets] },
      ...(older && olderWrites ? { before: { url: `${older.said.url}/api/v2/filters/`, script: 'wrk-add-keyword.lua', args: [olderWrites.targets] } } : {}),
    },
  ]),
  // The same write on accounts of 1, 100 and 1,000 filters: a retitle, so no account grows towards a limit.
  ...LIST_SIZES.filter((size) => size !== 10).map((size): Case => ({
    name: `PUT /api/v2/filters/:id retitling, account of ${size} filters, 16 connections`,
    goal: 'the same at every account size',
    connections: 16,
    baselineServer: 'durable',
    baselineName: 'bare durable write',
    ours: { url: `${url}/api/v2/filters/`, script: 'wrk-retitle.lua', args: [linesFile(`size-${size}.txt`, api.said.sizeTargets[`size${size}`]!)] },
    baseline: { url: `${durableUrl}/api/v2/filters/`, script: 'wrk-retitle.lua', args: [linesFile(`size-${size}.txt`, api.said.sizeTargets[`size${size}`]!)] },
  })),
  // A create and its delete in turn on one account of each size: the account never grows towards its limit.
  ...POST_SIZES.map((size): Case =>
    postSized(size, {
      name: `POST then DELETE /api/v2/filters, account of ${size} filters, 16 connections`,
      goal: 'the same at every account size',
      connections: 16,
      baselineServer: 'durable',
      baselineName: 'bare durable write',
      ours: postDelete(api.said, size),
      baseline: { ...postDelete(api.said, size), url: `${durableUrl}/api/v2/filters` },
      ...(older ? { before: postDelete(older.said, size) } : {}),
    }),
  ),
  ...LIST_SIZES.map((size) => ({
    name: `GET /api/v2/filters (${size} filters x 3 keywords)`,
    goal: 'cost grows with the answer only',
    ours: get('/api/v2/filters', tokens[`size${size}`]!),
    baseline: bareGet(`/size${size}`),
  })),
];

/**
 * The account of a POST then DELETE case back to its seeded size: when wrk stops, the creates in flight
 * are answered but never deleted, up to one per connection each run, which would carry the
 * largest account past its limit within a few runs.
 */
async function trimmed(c: Case): Promise<void> {
  const size = postSizeOf.get(c.name);
  if (size === undefined) return;
  for (const side of c.before ? [c.ours, c.before] : [c.ours]) {
    const headers = { authorization: `Bearer ${side.args[1]!}` };
    const listed = (await (await fetch(side.url, { headers })).json()) as { id: string }[];
    for (const { id } of listed.slice(size)) {
      const answer = await fetch(`${side.url}/${id}`, { method: 'DELETE', headers });
      // 404: a DELETE wrk sent before it stopped, still running when the listing was read, took it.
      if (answer.status !== 200 && answer.status !== 404) throw new Error(`trimming ${c.name}: DELETE answered ${answer.status}`);
    }
  }
}

/** CPU microseconds the server process spent per request answered during one wrk run: load on the machine hardly changes it. */
async function measured(server: ChildProcess, run: WrkRun): Promise<Sample> {
  const cpu = async () => {
    server.send('cpu');
    const [answer] = (await once(server, 'message')) as [{ cpuMicros: number }];
    return answer.cpuMicros;
  };
  const before = await cpu();
  const result = await runWrk(run);
  const used = (await cpu()) - before;
  return { ...result, cpuMicrosPerRequest: used / (result.requestsPerSecond * run.seconds) };
}

type Sample = WrkResult & { readonly cpuMicrosPerRequest: number };

const describe = (r: WrkResult) => `${r.requestsPerSecond.toFixed(0)} req/s (p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms)`;
const summary = (results: Sample[]): Sample => ({
  requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
  cpuMicrosPerRequest: median(results.map((r) => r.cpuMicrosPerRequest)),
  p50Ms: median(results.map((r) => r.p50Ms)),
  p99Ms: median(results.map((r) => r.p99Ms)),
});

const postSizes: { name: string; rate: number }[] = [];
try {
  console.log(
    `HTTP: wrk, ${defaultConnections} connections (unless a case says otherwise), ${seconds} s per round, ${rounds} rounds interleaved (median), load average ${loadAverage()}`,
  );
  console.log(`  ours at ${url}, bare Koa at ${bareUrl}${older ? `, before at ${older.said.url}` : ''}`);
  for (const c of cases) {
    if (only && !only.test(c.name)) continue;
    const connections = c.connections ?? defaultConnections;
    const baselineProcess = c.baselineServer === 'durable' ? durable.process : bare.process;
    const oursProcess = c.oursServer === 'off' ? unlimited.process : api.process;
    // Warm-up: JIT, connection set-up and SQLite's page cache, for both sides alike.
    await runWrk({ ...c.baseline, seconds: 1, connections });
    await runWrk({ ...c.ours, seconds: 1, connections });
    await trimmed(c);
    if (c.before) await runWrk({ ...c.before, seconds: 1, connections });
    const [ours, baseline, before]: [Sample[], Sample[], Sample[]] = [[], [], []];
    for (let round = 0; round < rounds; round += 1) {
      baseline.push(await measured(baselineProcess, { ...c.baseline, seconds, connections }));
      if (c.before && older) before.push(await measured(older.process, { ...c.before, seconds, connections }));
      ours.push(await measured(oursProcess, { ...c.ours, seconds, connections }));
      await trimmed(c);
    }
    if (before.length > 0) {
      const o = summary(before);
      console.log(`  before (${beforeDist}): ${describe(o)}, server CPU per request ${o.cpuMicrosPerRequest.toFixed(0)} us, load ${loadAverage()}`);
    }
    const [o, b] = [summary(ours), summary(baseline)];
    const p99 = c.p99Within ? `, p99 ${(o.p99Ms / b.p99Ms).toFixed(2)}x` : '';
    if (c.name.startsWith('POST then DELETE')) postSizes.push({ name: c.name, rate: o.requestsPerSecond });
    const cpu = `, server CPU per request ${o.cpuMicrosPerRequest.toFixed(0)} us vs ${b.cpuMicrosPerRequest.toFixed(0)} us`;
    console.log(
      `${row(c.name, describe(o), `${c.baselineName ?? 'bare Koa'} ${describe(b)}`, o.requestsPerSecond / b.requestsPerSecond, c.goal)}${p99}${cpu}, ${rounds} rounds, load ${loadAverage()}`,
    );
  }
  // Issue 33: a write's cost independent of the account's size, the largest account against the smallest.
  if (postSizes.length === POST_SIZES.length) {
    const [smallest, largest] = [postSizes[0]!, postSizes.at(-1)!];
    console.log(
      row(
        `POST then DELETE on an account of ${POST_SIZES.at(-1)} filters against one of ${POST_SIZES[0]}, 16 connections`,
        `${largest.rate.toFixed(0)} req/s`,
        `${smallest.rate.toFixed(0)} req/s`,
        largest.rate / smallest.rate,
        'at least 0.9',
      ),
    );
  }
} finally {
  bare.process.kill('SIGTERM');
  durable.process.kill('SIGTERM');
  for (const server of older ? [api, unlimited, older] : [api, unlimited]) {
    server.process.kill('SIGTERM');
    await once(server.process, 'exit');
    rmSync(server.said.dataDir, { recursive: true, force: true });
  }
  rmSync(scratch, { recursive: true, force: true });
}
