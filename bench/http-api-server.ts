/**
 * Child process of http-api-bench.ts: the filters API as `npm start` runs it (compiled, SQLite files in a fresh
 * temporary DATA_DIR, the projector in process, JSON logs at info level on stdout, which the bench sends
 * to a file), seeded through its own HTTP API. Tells the bench over IPC what it seeded, then serves
 * until SIGTERM; answers 'cpu' (CPU time used) and 'stall' (the worst event-loop delay since the last 'stall'). With BENCH_PROFILE=<dir> it records a V8 CPU profile from the end of seeding to exit.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_FILTER } from './bench-filter.ts';
import { LIST_SIZES, POST_SIZES, WRITE_ACCOUNTS, type SeededApi } from './http-bench-seed.ts';

// What `npm start` runs: the compiled service (the bench builds dist/ first when it is stale), typed by its
// sources; BENCH_DIST names another build (e.g. main's) to measure beside this one.
const dist = process.env.BENCH_DIST ? new URL(`file://${process.env.BENCH_DIST.replace(/\/?$/, '/')}`).href : new URL('../dist/', import.meta.url).href;
const { loadConfig } = (await import(`${dist}config.js`)) as typeof import('../src/config.ts');
const { startService } = (await import(`${dist}service.js`)) as typeof import('../src/service.ts');
const { createLogger } = (await import(`${dist}shared/logger.js`)) as typeof import('../src/shared/logger.ts');

/** Filters the PUT case cycles through, so that no filter's stream grows long during a run. */
const PUT_FILTERS_PER_ACCOUNT = 10;

const dataDir = mkdtempSync(join(tmpdir(), 'cf-bench-http-'));
// As users run it: rate limits on (the default), every request counted, with limits no run reaches, so
// that no answer is a 429; RATE_LIMITS=off measures the API without the counting.
const unreached = { RATE_LIMIT_AUTHENTICATED_API: '1000000', RATE_LIMIT_PER_TOKEN_API: '1000000', RATE_LIMIT_PASSWORD_CHANGE: '1000000' };
const config = loadConfig({ RATE_LIMITS: 'on', ...unreached, ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
const service = await startService({ config, logger: createLogger(process.env.LOG_LEVEL ?? 'info') });
const body = JSON.stringify(BENCH_FILTER);

async function accountWith(name: string, filters: number): Promise<{ token: string; ids: string[] }> {
  const account = await service.stores.accounts.createAccount(name);
  const token = await service.stores.accounts.createToken(account.id, ['read', 'write']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (let done = 0; done < filters; done += 32) {
    const batch = Array.from({ length: Math.min(32, filters - done) }, async () => {
      const response = await fetch(`${service.url}/api/v2/filters`, { method: 'POST', headers, body });
      if (response.status !== 200) throw new Error(`seeding: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    });
    ids.push(...(await Promise.all(batch)));
  }
  return { token, ids };
}

const tokens: Record<string, string> = {};
tokens.main = (await accountWith('main', 10)).token;
const postTokens: string[] = [];
const putAccounts: { token: string; ids: string[] }[] = [];
for (let i = 0; i < WRITE_ACCOUNTS; i += 1) {
  postTokens.push((await accountWith(`posts${i}`, 0)).token);
  putAccounts.push(await accountWith(`puts${i}`, PUT_FILTERS_PER_ACCOUNT));
}
// Account after account, so requests in flight together are of different accounts.
const putTargets = Array.from({ length: PUT_FILTERS_PER_ACCOUNT }, (_, n) => putAccounts.map(({ token, ids }) => `${token} ${ids[n]!}`)).flat();
const sizeTargets: Record<string, string[]> = {};
for (const size of LIST_SIZES) {
  const { token, ids } = await accountWith(`size${size}`, size);
  tokens[`size${size}`] = token;
  // At most ten filters of the account take the keywords, so none of them grows long during a run.
  sizeTargets[`size${size}`] = ids.slice(0, 10).map((id) => `${token} ${id}`);
}

const postSizeTokens: Record<string, string> = {};
for (const size of POST_SIZES) postSizeTokens[`post${size}`] = (await accountWith(`post-size${size}`, size)).token;

// The V8 CPU profile (what `--cpu-prof` writes) of the measured part only, not of the seeding.
const profiler = process.env.BENCH_PROFILE ? await startProfiler(process.env.BENCH_PROFILE) : null;
const seeded: SeededApi = { url: service.url, dataDir, tokens, postTokens, putTargets, sizeTargets, postSizeTokens };
process.send!(seeded);
// The longest the event loop stood still since the last question ('stall'), for benches that bound it.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
process.on('message', (message: unknown) => {
  if (message === 'stall') {
    process.send!({ stallMs: loopDelay.max / 1e6 });
    loopDelay.reset();
  }
  if (message !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send!({ cpuMicros: user + system });
});
const stop = () =>
  void service
    .close()
    .then(() => profiler?.())
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('disconnect', stop);

async function startProfiler(dir: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `api-${process.pid}.cpuprofile`), JSON.stringify(profile));
  };
}
