/**
 * Requests/s of the filters API against a bare Koa route answering the same JSON, both measured in this
 * run with the same client (autocannon, loopback only, bounded duration). Prints the ratio per case.
 *   npm run bench:http        (BENCH_SECONDS, default 3, per round; two rounds, interleaved)
 */
import autocannon from 'autocannon';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { tempDir } from '../test/support/temp-dir.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = 16;

async function measure(url: string, options: Partial<autocannon.Options> = {}): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function bareServer(body: unknown): Promise<{ url: string; close: () => void }> {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'POST') {
      let raw = '';
      for await (const chunk of ctx.req) raw += chunk;
      ctx.body = { ...(JSON.parse(raw) as object), id: '1' };
    } else ctx.body = body;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const service = await startService({ config: loadConfig({ DATA_DIR: tempDir('cf-bench-'), PORT: '0', HOST: '127.0.0.1' }), logger: silentLogger });
const account = await service.stores.accounts.createAccount('bench');
const token = await service.stores.accounts.createToken(account.id, ['read', 'write']);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const filter = { title: 'bench', context: ['home', 'public'], keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }, { keyword: 'c' }] };
for (let i = 0; i < 10; i += 1) {
  await fetch(`${service.url}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify(filter) });
}
const listing = await (await fetch(`${service.url}/api/v2/filters`, { headers })).json();
const bare = await bareServer(listing);

const cases = [
  { name: 'GET /api/v2/filters (10 filters)', api: () => measure(`${service.url}/api/v2/filters`, { headers }), base: () => measure(bare.url) },
  {
    name: 'POST /api/v2/filters (3 keywords)',
    api: () => measure(`${service.url}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify(filter) }),
    base: () => measure(bare.url, { method: 'POST', headers, body: JSON.stringify(filter) }),
  },
];

console.log(`connections=${connections}, ${seconds}s per round, 2 rounds interleaved`);
for (const c of cases) {
  let api = 0;
  let base = 0;
  for (let round = 0; round < 2; round += 1) {
    base += await c.base();
    api += await c.api();
  }
  console.log(`${c.name}: api ${(api / 2).toFixed(0)} req/s, bare Koa ${(base / 2).toFixed(0)} req/s, ratio ${(api / base).toFixed(3)}`);
}
bare.close();
await service.close();
process.exit(0);
