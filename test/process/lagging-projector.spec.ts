import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FILTER_EVENT_VERSIONS } from '../../src/events/filter-event-versions.ts';
import type { EventMetadata } from '../../src/events/filter-events.ts';
import { filterStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { newId } from '../../src/shared/ids.ts';
import { eventMetadata } from '../support/event-metadata.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { NodeProcess } from '../support/node-process.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

const now = '2026-11-26T06:40:00.000Z';
/** Far more than one live batch (512 events): the projector needs many batches to catch up. */
const BACKLOG_FILTERS = 4800;
/** Filters spread over accounts: each stays within the limit of filters per account. */
const ACCOUNTS = 6;
const CONCURRENT_CREATES = 300;

const metadata = (accountId: string, commitIndex: number, commitSize: number, schemaVersion = 1): EventMetadata =>
  eventMetadata({ accountId, requestId: newId(), commitIndex, commitSize, schemaVersion });

/** What a POST /api/v2/filters with one keyword appends: a commit of two events. */
const createCommit = (accountId: string, filterId: string, title: string) => [
  {
    type: 'FilterCreated',
    data: { filterId, accountId, title, context: ['home'], action: 'warn', expiresAt: null, createdAt: now },
    metadata: metadata(accountId, 0, 2),
  },
  {
    type: 'KeywordsUpdated',
    data: { filterId, removed: [], changed: [], added: [{ id: newId(), keyword: 'magic', wholeWord: true }], replacesAll: false, updatedAt: now },
    metadata: metadata(accountId, 1, 2, FILTER_EVENT_VERSIONS.KeywordsUpdated),
  },
];

/**
 * A backlog written straight into the log, as a projector that fell behind finds it: one commit of a
 * single event first (another account's filter), so that batches of 512 events would end inside the
 * two-event commits after it.
 */
async function writeBacklog(dir: string, owners: readonly Owner[]): Promise<bigint> {
  const events = SqliteEventStore.inDataDir(dir);
  try {
    const other = newId();
    const filterId = newId();
    const single = createCommit(other, filterId, 'single')
      .slice(0, 1)
      .map((e) => ({ ...e, metadata: metadata(other, 0, 1) }));
    let last = (await events.appendToStream(filterStream(filterId), single, 'no_stream')).position;
    for (let start = 0; start < BACKLOG_FILTERS; start += 500) {
      const appended = await Promise.all(
        Array.from({ length: Math.min(500, BACKLOG_FILTERS - start) }, (_, i) => {
          const id = newId();
          const owner = owners[(start + i) % owners.length]!;
          return events.appendToStream(filterStream(id), createCommit(owner.accountId, id, `backlog ${start + i}`), 'no_stream');
        }),
      );
      for (const { position } of appended) if (position > last) last = position;
    }
    return last;
  } finally {
    await events.close();
  }
}

/** The position of the log's last event, read from the file as an auditor would. */
function logEndOf(dir: string): bigint {
  const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT max(position) FROM events').safeIntegers().pluck().get() as bigint;
  } finally {
    db.close();
  }
}

describe('A separate projector that lags and is killed never leaves part of a request in the read models', function () {
  this.timeout(420_000);
  const processes: NodeProcess[] = [];

  after(async () => {
    await Promise.all(processes.map((child) => child.kill('SIGKILL')));
  });

  it('given a backlog of thousands of events and concurrent creates, when the projector is killed mid-way, then every listed filter has its keyword and v1 lists as many records', async () => {
    const dir = scratchDir();
    const owners: Owner[] = [];
    for (let i = 0; i < ACCOUNTS; i += 1) owners.push(await newOwner(dir));
    const backlogEnd = await writeBacklog(dir, owners);
    const reads = SqliteReadStore.inDataDir(dir);
    try {
      const apiProcess = NodeProcess.start('src/main.ts', { DATA_DIR: dir, PROJECTOR: 'off', RATE_LIMITS: 'off' });
      processes.push(apiProcess);
      const url = await apiProcess.url();
      const apis = owners.map((owner) => filtersApi(url, owner.token));
      const projector = NodeProcess.start('src/projector-main.ts', { DATA_DIR: dir });
      processes.push(projector);

      // The creates wait for the read models, so they are answered only once some projector has them.
      const creates = Promise.all(
        Array.from({ length: CONCURRENT_CREATES }, (_, i) => apis[i % ACCOUNTS]!.post('/api/v2/filters', newFilter(`concurrent ${i}`))),
      );
      await waitUntil(async () => ((await reads.checkpoint(FILTERS_PROJECTION)) ?? 0n) > 0n, 'the projector storing its first batch');
      await projector.kill('SIGKILL');
      const frozenAt = (await reads.checkpoint(FILTERS_PROJECTION))!;
      assert.ok(frozenAt < backlogEnd, `killed before it caught up (checkpoint ${frozenAt} of ${backlogEnd}), so what it left is a batch's end`);

      const consistent = async (what: string) => {
        let listed = 0;
        for (const api of apis) {
          const v2 = await api.get('/api/v2/filters');
          const v1 = await api.get('/api/v1/filters');
          assert.equal(v2.status, 200);
          const bare = (v2.body as { title: string; keywords: unknown[] }[]).filter((f) => f.keywords.length !== 1);
          assert.deepEqual(
            bare.map((f) => f.title),
            [],
            `${what}: filters listed without their keyword`,
          );
          assert.equal(v1.body.length, v2.body.length, `${what}: one v1 record per keyword filter`);
          listed += v2.body.length as number;
        }
        return listed;
      };
      const seenFrozen = await consistent(`after the kill at ${frozenAt}`);
      assert.ok(seenFrozen > 0 && seenFrozen < BACKLOG_FILTERS + CONCURRENT_CREATES);

      const successor = NodeProcess.start('src/projector-main.ts', { DATA_DIR: dir });
      processes.push(successor);
      const answers = await creates;
      assert.deepEqual(
        answers.filter((a) => a.status !== 200),
        [],
      );
      // A create answers once the read models pass it, or after its 5 s wait for them anyway (a loaded
      // machine: seen listing 256 of 5,100): the successor's catching up is waited for on its own.
      const logEnd = logEndOf(dir);
      await waitUntil(async () => ((await reads.checkpoint(FILTERS_PROJECTION)) ?? 0n) >= logEnd, `the successor passing the log's end ${logEnd}`, 180_000);
      assert.equal(await consistent('once a successor caught up'), BACKLOG_FILTERS + CONCURRENT_CREATES);
    } finally {
      await reads.close();
    }
  });
});
