/**
 * A process of its own holding the EventStoreDB protocol STAND-IN (not a server) with a large log, for
 * bench/esdb-audit-bench.ts: `node --import tsx bench/esdb-stand-in-log-process.ts <events>` prints one
 * JSON line (url, the queried account, records, that account's events) once it listens, then serves until
 * killed. The log is put straight into memory, with the account-stream entries the adapter writes before
 * each filter's creation; one event in ten is another application's.
 */
import { randomUUID } from 'node:crypto';
import { accountStream, OWNED_TYPE, ownershipEventId } from '../src/events/esdb-account-index.ts';
import { filterStream } from '../src/events/filter-events.ts';
import { EsdbStandIn } from '../test/support/esdb-stand-in.ts';
import { count } from './bench-rows.ts';

const size = Number(process.argv[2] ?? 1_000_000);
const EVENTS_PER_ACCOUNT = 250;
const FILTERS_PER_ACCOUNT = 5;
const now = new Date().toISOString();

/** Park–Miller: the same log for the same size, run after run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const standIn = await EsdbStandIn.start();
const put = (stream: string, type: string, data: unknown, metadata: unknown, id: string = randomUUID()) =>
  standIn.log.append(stream, { kind: 'any' }, [{ id, type, contentType: 'application/json', data: json(data), customMetadata: json(metadata) }]);

const accounts = Math.max(2, Math.round(size / EVENTS_PER_ACCOUNT));
const accountIds = Array.from({ length: accounts }, () => randomUUID());
const filters = new Set<string>();
const next = random(1234567);
const started = Date.now();
let accountEvents = 0;
for (let i = 0; i < size; i += 1) {
  if (i % 10 === 9) {
    put(`orders-${i % 97}`, 'OrderPlaced', { n: i }, {});
    continue;
  }
  const account = Math.floor(next() * accounts);
  const accountId = accountIds[account]!;
  const filterId = `${accountId}-${Math.floor(next() * FILTERS_PER_ACCOUNT)}`;
  const metadata = { accountId, requestId: 'bench', apiVersion: 'v2', tokenId: null, commitIndex: 0, commitSize: 1, schemaVersion: 1 };
  if (account === 0) accountEvents += 1;
  if (!filters.has(filterId)) {
    filters.add(filterId);
    put(accountStream(accountId), OWNED_TYPE, { stream: filterStream(filterId) }, {}, ownershipEventId(filterStream(filterId)));
    put(
      filterStream(filterId),
      'FilterCreated',
      { filterId, accountId, title: `f ${i}`, context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
      metadata,
    );
    continue;
  }
  put(filterStream(filterId), 'StatusFiltered', { filterId, filterStatusId: String(i), statusId: String(i), filteredAt: now }, metadata);
}
// The log holds its entries from the start: no pass over $all is due.
put('filteraccount_backfill', 'AccountIndexBackfilled', { at: now }, {});
process.stderr.write(`stand-in log of ${count(standIn.log.events.length)} records made in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
process.stdout.write(`${JSON.stringify({ url: standIn.url, accountId: accountIds[0], records: standIn.log.events.length, accountEvents })}\n`);
