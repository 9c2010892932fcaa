/**
 * The NATS side of the matching benchmark, in a process of its own so that the load client does not
 * take its CPU: the service (its NATS responder on a subject of its own, one account seeded with the
 * benchmark's 20 filters through the HTTP API) and a baseline responder that parses each request and
 * answers `[]` for every status without matching. Prints one JSON line, then runs until killed.
 */
import { connect } from 'nats';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { MATCH_QUEUE_GROUP } from '../src/notifications/nats-match-responder.ts';
import { startService } from '../src/service.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { scratchDir } from '../test/support/scratch-dir.ts';
import { benchFilters } from './match-bench-data.ts';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
// Not newId(): this process holds no worker number until startService has leased one.
const subject = `bench.filters.match.${randomBytes(6).toString('hex')}`;
const echoSubject = `${subject}.echo`;

const env = { RATE_LIMITS: 'off', DATA_DIR: scratchDir('cf-bench-'), PORT: '0', HOST: '127.0.0.1', NATS_URL: natsUrl, NATS_MATCH_SUBJECT: subject };
const service = await startService({ config: loadConfig(env), logger: silentLogger, env });
const account = await service.stores.accounts.createAccount('bench');
const token = await service.stores.accounts.createToken(account.id, ['read', 'write']);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
for (const filter of benchFilters()) {
  const body = {
    title: filter.title,
    context: filter.context,
    filter_action: filter.filterAction,
    keywords_attributes: filter.keywords.map((k) => ({ keyword: k.keyword, whole_word: k.wholeWord })),
  };
  const created = await fetch(`${service.url}/api/v2/filters`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!created.ok) throw new Error(`seeding failed: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  for (const { statusId } of filter.statuses) {
    await fetch(`${service.url}/api/v2/filters/${id}/statuses`, { method: 'POST', headers, body: JSON.stringify({ status_id: statusId }) });
  }
}

const echo = await connect({ servers: natsUrl, name: 'content-filters-bench-echo' });
const encoder = new TextEncoder();
echo.subscribe(`${echoSubject}.*`, {
  queue: MATCH_QUEUE_GROUP,
  callback: (error, msg) => {
    if (error) return;
    const { statuses } = JSON.parse(msg.string()) as { statuses: { id: string }[] };
    const results: Record<string, unknown[]> = {};
    for (const status of statuses) results[status.id] = [];
    msg.respond(encoder.encode(JSON.stringify({ results })));
  },
});
await echo.flush();

console.log(JSON.stringify({ subject, echoSubject, accountId: account.id }));
process.once('SIGTERM', () => void Promise.all([echo.drain(), service.close()]).then(() => process.exit(0)));
