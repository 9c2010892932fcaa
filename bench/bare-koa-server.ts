/**
 * Child process of http-api-bench.ts: the baseline, a bare Koa app in a process of its own. GET answers
 * the JSON bytes it was given for the path, from memory; POST, PUT and PATCH read and parse the JSON body
 * and answer it back with an id. Receives its bodies over IPC, answers with its address.
 */
import Koa from 'koa';
import type { AddressInfo } from 'node:net';

// After its bodies, the bench only asks for the CPU time this process has used so far, in microseconds.
process.on('message', (message: unknown) => {
  if (message !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send!({ cpuMicros: user + system });
});

process.once('message', (bodies: Record<string, string>) => {
  const byPath = new Map(Object.entries(bodies).map(([path, json]) => [path, Buffer.from(json)]));
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'GET') {
      ctx.type = 'application/json';
      ctx.body = byPath.get(ctx.path);
      return;
    }
    let raw = '';
    for await (const chunk of ctx.req) raw += chunk;
    ctx.body = { ...(JSON.parse(raw) as object), id: '1' };
  });
  const server = app.listen(0, '127.0.0.1', () => process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
process.once('disconnect', () => process.exit(0));
