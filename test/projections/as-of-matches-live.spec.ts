import assert from 'node:assert/strict';
import { writeLogFixture } from '../../bench/log-fixture.ts';
import { loadConfig } from '../../src/config.ts';
import { SqliteEventStore } from '../../src/events/sqlite-event-store.ts';
import { filterJson } from '../../src/http/serializers.ts';
import { filtersAsOf } from '../../src/projections/admin/filters-as-of.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { startService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Issue 33: `filters --account <id> --as-of <now>` and GET /api/v2/filters must answer the same filters
 * with the same content. The log is the benchmarks' generator (bench/log-fixture.ts) at a small size: it
 * writes keyword changes in their first schema version (a whole list), statuses filtered and unfiltered,
 * renames and deletions, spread over two accounts, as the 1,000,000-event log has them; the live
 * projector projects it from nothing.
 */
describe('time travel to now answers what the live read model answers', () => {
  it('lists the same filters, in the same order, field for field', async function () {
    this.timeout(120_000);
    const fixture = await writeLogFixture(scratchDir(), 3_000, 1_500);
    const service = await startService({
      config: loadConfig({ DATA_DIR: fixture.dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }),
      logger: silentLogger,
    });
    const events = SqliteEventStore.inDataDir(fixture.dir);
    try {
      await waitUntil(
        async () => ((await service.stores.reads.checkpoint(FILTERS_PROJECTION)) ?? -1n) >= fixture.lastPosition,
        'the projector to reach the end of the log',
        90_000,
      );
      const answer = await fetch(`${service.url}/api/v2/filters`, { headers: { authorization: `Bearer ${fixture.token}` } });
      const live = (await answer.json()) as { statuses: unknown[]; keywords: unknown[] }[];
      const asOf = JSON.parse(JSON.stringify((await filtersAsOf(events, fixture.accountId, { time: new Date() })).map(filterJson))) as unknown[];
      // Not vacuous: the account holds filters with keywords and filtered statuses.
      assert.ok(live.length > 5 && live.some((f) => f.statuses.length > 0) && live.some((f) => f.keywords.length > 1));
      assert.deepEqual(live, asOf);
    } finally {
      await events.close();
      await service.close();
    }
  });
});
