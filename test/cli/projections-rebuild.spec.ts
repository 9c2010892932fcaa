import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { readWholeLog } from '../../src/events/event-history.ts';
import { filterIdOfStream } from '../../src/events/filter-events.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { FILTERS_LEASE } from '../../src/projections/runtime/leased-projector.ts';
import type { ReadStore } from '../../src/projections/stores/read-store.ts';
import { SqliteReadStore } from '../../src/projections/stores/sqlite-read-store.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { newOwner as newLeaseOwner } from '../../src/shared/process-identity.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/** Long, so no renewal is ever late on a busy machine; the running projector sees the rebuild at its next renewal. */
const LEASE_MS = '3000';

/** Everything a read model holds, tombstones and checkpoint included, for one generation. */
async function contents(reads: ReadStore, filterIds: string[], owners: Owner[]) {
  return {
    views: await Promise.all(filterIds.map((id) => reads.loadFilter(id))),
    lists: await Promise.all(owners.map(async (o) => [await reads.listFilters(o.accountId), await reads.listV1Filters(o.accountId)])),
    checkpoint: await reads.checkpoint(FILTERS_PROJECTION),
  };
}

async function filterIdsInLog(dir: string): Promise<string[]> {
  const events = SqliteEventStore.inDataDir(dir);
  const ids = new Set<string>();
  for await (const event of readWholeLog(events)) ids.add(filterIdOfStream(event.streamName)!);
  await events.close();
  return [...ids];
}

async function writeSomeHistory(url: string, owners: Owner[]): Promise<void> {
  for (const [n, owner] of owners.entries()) {
    const api = filtersApi(url, owner.token);
    for (let i = 0; i < 15; i += 1) {
      const id = (await api.post('/api/v2/filters', newFilter(`f${n}-${i}`, `w${i}`))).body.id;
      if (i % 3 === 0) await api.post(`/api/v2/filters/${id}/statuses`, { status_id: `${100 + i}` });
      if (i % 4 === 0) await api.put(`/api/v2/filters/${id}`, { title: `renamed ${i}`, keywords_attributes: [{ keyword: 'added' }] });
      if (i % 5 === 0) await api.delete(`/api/v2/filters/${id}`);
    }
    await api.post('/api/v1/filters', { phrase: 'legacy', context: ['home'], irreversible: true, whole_word: false });
  }
}

describe('projections rebuild', function () {
  this.timeout(60_000);
  let dir: string;
  let owners: Owner[];
  let service: RunningService | null = null;
  const rebuild = () => runCli(['projections', 'rebuild'], { DATA_DIR: dir, PROJECTOR_LEASE_MS: LEASE_MS });

  before(async () => {
    dir = scratchDir();
    service = await startService({
      config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', PROJECTOR_LEASE_MS: LEASE_MS, RATE_LIMITS: 'off' }),
      logger: silentLogger,
    });
    owners = [await newOwner(dir), await newOwner(dir)];
    await writeSomeHistory(service.url, owners);
  });

  after(async () => {
    await service?.close();
  });

  it('rebuilds into a fresh generation equal to the live one, which the running projector swaps in while the API keeps answering', async () => {
    const reads = SqliteReadStore.inDataDir(dir);
    try {
      const ids = await filterIdsInLog(dir);
      const live = await contents(reads, ids, owners);
      const api = filtersApi(service!.url, owners[0]!.token);
      let answering = true;
      const statuses: number[] = [];
      const reading = (async () => {
        while (answering) statuses.push((await api.get('/api/v2/filters')).status);
      })();
      const result = await rebuild();
      answering = false;
      await reading;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^rebuilt \d+ events into generation 1: \d+ events\/s \(.*\); swapped in by the running projector\n$/);
      assert.match(result.stderr, /rebuild: 100% \(\d+ events, \d+ events\/s\)/, 'plain progress lines when stderr is not a terminal');
      assert.ok(statuses.length > 0 && statuses.every((s) => s === 200), `answers during the rebuild: ${statuses.join(',')}`);
      assert.equal(await reads.currentGeneration(), 1);
      assert.deepEqual(await contents(reads.generation(1), ids, owners), live);
      assert.deepEqual(await contents(reads, ids, owners), live);

      const after = await api.post('/api/v2/filters', newFilter('after the swap'));
      assert.equal((await api.get(`/api/v2/filters/${after.body.id}`)).body.title, 'after the swap');
    } finally {
      await reads.close();
    }
  });

  it('swaps the rebuild in itself when no projector runs', async () => {
    await service!.close();
    service = null;
    const reads = SqliteReadStore.inDataDir(dir);
    try {
      const ids = await filterIdsInLog(dir);
      const live = await contents(reads, ids, owners);
      const result = await rebuild();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /into generation 2: .* swapped in by this command \(no projector was running\)/);
      assert.equal(await reads.currentGeneration(), 2);
      assert.deepEqual(await contents(reads, ids, owners), live);
    } finally {
      await reads.close();
    }
  });

  /** A data directory holding only a copy of the log, as restored from a backup: no read models at all. */
  const restoredLog = () => {
    const restored = scratchDir();
    copyFileSync(join(dir, 'events.sqlite'), join(restored, 'events.sqlite'));
    return restored;
  };

  it('rebuilds the whole log of a restored events.sqlite without read models, and swaps it in (issue 23, defect 10)', async () => {
    const restored = restoredLog();
    const logged = SqliteEventStore.inDataDir(restored);
    let total = 0;
    for await (const event of readWholeLog(logged)) total += event.streamName ? 1 : 0;
    await logged.close();
    const result = await runCli(['projections', 'rebuild'], { DATA_DIR: restored, PROJECTOR_LEASE_MS: LEASE_MS });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^rebuilt ${total} events into generation 1: .* swapped in by this command`));
    assert.match(result.stderr, /^rebuild: \d+ events, \d+ events\/s$/m, 'counts events, as the end of the log is not known');
    assert.doesNotMatch(result.stderr, /%/);
    const [original, rebuilt] = [SqliteReadStore.inDataDir(dir), SqliteReadStore.inDataDir(restored)];
    try {
      const ids = await filterIdsInLog(dir);
      assert.deepEqual(await contents(rebuilt, ids, owners), await contents(original, ids, owners));
    } finally {
      await Promise.all([original.close(), rebuilt.close()]);
    }
  });

  it('refuses to rebuild a log without checkpoint while a projector holds the lease, and says why', async () => {
    const restored = restoredLog();
    const reads = SqliteReadStore.inDataDir(restored);
    try {
      assert.equal(await reads.tryLease(FILTERS_LEASE, newLeaseOwner(), 60_000), true);
      const result = await runCli(['projections', 'rebuild'], { DATA_DIR: restored, PROJECTOR_LEASE_MS: LEASE_MS });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /no checkpoint and a running projector holds the projector lease: it is projecting the whole log itself/);
      assert.equal(await reads.currentGeneration(), 0, 'nothing swapped in');
    } finally {
      await reads.close();
    }
  });
});
