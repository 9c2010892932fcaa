/**
 * The two servers the HTTP bench compares, in a process of their own so that the load client does not
 * take their CPU: the filters API (seeded with one account and 10 filters) and a bare Koa app answering
 * the same JSON. Prints one JSON line with their addresses, then runs until killed.
 */
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { scratchDir } from '../test/support/scratch-dir.ts';

import { BENCH_FILTER } from './bench-filter.ts';

async function bareKoa(listing: unknown): Promise<string> {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'POST') {
      let raw = '';
      for await (const chunk of ctx.req) raw += chunk;
      ctx.body = { ...(JSON.parse(raw) as object), id: '1' };
    } else ctx.body = listing;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const service = await startService({ config: loadConfig({ DATA_DIR: scratchDir('cf-bench-'), PORT: '0', HOST: '127.0.0.1' }), logger: silentLogger });
const account = await service.stores.accounts.createAccount('bench');
const token = await service.stores.accounts.createToken(account.id, ['read', 'write']);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
for (let i = 0; i < 10; i += 1) {
  await fetch(`${service.url}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify(BENCH_FILTER) });
}
const listing: unknown = await (await fetch(`${service.url}/api/v2/filters`, { headers })).json();
console.log(JSON.stringify({ api: service.url, bare: await bareKoa(listing), token }));
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
