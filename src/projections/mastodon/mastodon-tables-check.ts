import type { EventStore } from '../../events/event-store.ts';
import { everyAccount } from '../admin/read-model-check.ts';
import { fillGeneration } from '../runtime/fill-generation.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import { MASTODON_PROJECTION } from './mastodon-filter-rows.ts';
import type { MastodonFilterTables } from './mastodon-filter-tables.ts';
import { expectedRows, mastodonDrift, type MastodonDrift } from './mastodon-drift.ts';

/** An account whose differences may be the projection moving on is looked at again, at most this often. */
const ATTEMPTS = 5;

export interface MastodonTablesReport {
  readonly accounts: number;
  readonly filters: number;
  readonly differences: number;
  /** Where Mastodon's tables stood in the log (their checkpoint), as last read. */
  readonly position: bigint | null;
}

/**
 * `verify --read-models` in Mastodon mode: replays the log into a scratch generation up to the
 * checkpoint of Mastodon's tables and compares every account's rows there (custom_filters and the
 * keyword and status rows of its filters) with the rows the replayed views stand for (mastodonRowsOf, the
 * projector's own mapping), telling each difference: a filter Mastodon's web UI changed behind the
 * service's back, a row missing, a row the log never made. Where the projection moved on meanwhile, the
 * replay catches up to its checkpoint before the account is judged again.
 */
export async function checkMastodonTables(
  events: EventStore,
  reads: ManagedReadStore,
  tables: MastodonFilterTables,
  onDrift: (drift: MastodonDrift) => void | Promise<void>,
): Promise<MastodonTablesReport> {
  const generation = await reads.createScratchGeneration();
  const scratch = reads.generation(generation);
  let position: bigint | null = null;
  const catchUp = async (): Promise<boolean> => {
    const now = await tables.checkpoint(MASTODON_PROJECTION);
    if (now === null || (position !== null && now <= position)) return false;
    await fillGeneration(events, scratch, now);
    position = now;
    return true;
  };
  try {
    await catchUp();
    const report = { accounts: 0, filters: 0, differences: 0 };
    for await (const account of everyAccount(tables, scratch)) {
      for (let attempt = 1; ; attempt += 1) {
        const [live, views] = await Promise.all([tables.accountRows(account), scratch.listFilters(account)]);
        const found = mastodonDrift(account, live, expectedRows(views));
        if (found.length > 0 && attempt < ATTEMPTS && (await catchUp())) continue;
        report.accounts += 1;
        report.filters += live.filters.length;
        report.differences += found.length;
        for (const drift of found) await onDrift(drift);
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { ...report, position };
  } finally {
    await reads.dropGeneration(generation);
  }
}
