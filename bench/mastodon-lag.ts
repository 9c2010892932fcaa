// The lag from an acknowledged write to its row in Mastodon's custom_filters (docs/mastodon.md#lag):
// a service in Mastodon mode on a fresh database of the local PostgreSQL, writes one at a time, each
// row polled for on a connection of its own from the moment the answer arrived. A measurement, not a
// test: `node --import tsx bench/mastodon-lag.ts` (MASTODON_LAG_WRITES, default 200).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { MastodonTestDatabase } from '../test/support/mastodon-database.ts';
import { TestServer } from '../test/support/test-server.ts';

const writes = Number(process.env.MASTODON_LAG_WRITES ?? 200);
const db = await MastodonTestDatabase.create();
const server = await TestServer.start({ MASTODON_DATABASE_URL: db.url });
const poller = new pg.Client({ connectionString: db.url });
await poller.connect();
try {
  const token = await db.token(await db.user());
  const created: { body: { id: string } } = await server.request('POST', '/api/v2/filters', {
    token,
    json: { title: 't0', context: ['home'], keywords_attributes: [{ keyword: 'k' }] },
  });
  const lags: number[] = [];
  for (let i = 1; i <= writes; i += 1) {
    const title = `t${i}`;
    const answer = await server.request('PUT', `/api/v2/filters/${created.body.id}`, { token, json: { title } });
    const answeredAt = performance.now();
    if (answer.status !== 200) throw new Error(`write ${i} answered ${answer.status}`);
    for (;;) {
      const { rows } = await poller.query<{ phrase: string }>('SELECT phrase FROM custom_filters WHERE id = $1', [created.body.id]);
      if (rows[0]?.phrase === title) break;
    }
    lags.push(performance.now() - answeredAt);
  }
  lags.sort((a, b) => a - b);
  const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!.toFixed(1);
  console.log(
    `mastodon lag: ${writes} writes, acknowledged write to its row readable: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms, max ${lags.at(-1)!.toFixed(1)} ms (load average ${loadavg()[0]!.toFixed(1)})`,
  );
} finally {
  await poller.end();
  await server.close();
  await db.drop();
}
