/**
 * Requests/s of the filters API against a bare Koa route answering the same JSON, measured in this run
 * with the same client (autocannon in this process; both servers in a child process, so on 2 cores the
 * client and the server under test each have one). Loopback only, bounded duration, rounds interleaved.
 *   npm run bench:http        (BENCH_SECONDS per round, default 3; BENCH_ROUNDS, default 2)
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { BENCH_FILTER } from './bench-filter.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = 16;

async function measure(url: string, options: Partial<autocannon.Options> = {}): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const child = spawn(process.execPath, ['--import', 'tsx', new URL('./http-bench-servers.ts', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
const { api, bare, token } = JSON.parse(line) as { api: string; bare: string; token: string };
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const body = JSON.stringify(BENCH_FILTER);

const cases = [
  { name: 'GET /api/v2/filters (10 filters)', api: () => measure(`${api}/api/v2/filters`, { headers }), base: () => measure(bare) },
  {
    name: 'POST /api/v2/filters (3 keywords, durable append)',
    api: () => measure(`${api}/api/v2/filters`, { method: 'POST', headers, body }),
    base: () => measure(bare, { method: 'POST', headers, body }),
  },
];

try {
  console.log(`connections=${connections}, ${seconds}s per round, ${rounds} rounds interleaved, load average ${loadavg()[0]!.toFixed(2)}`);
  for (const c of cases) {
    let apiTotal = 0;
    let baseTotal = 0;
    for (let round = 0; round < rounds; round += 1) {
      baseTotal += await c.base();
      apiTotal += await c.api();
    }
    console.log(
      `${c.name}: api ${(apiTotal / rounds).toFixed(0)} req/s, bare Koa ${(baseTotal / rounds).toFixed(0)} req/s, ratio ${(apiTotal / baseTotal).toFixed(3)}`,
    );
  }
} finally {
  child.kill('SIGTERM');
}
