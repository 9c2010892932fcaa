import type { Config } from '../config.ts';
import { checkReadModels } from '../projections/admin/read-model-check.ts';
import type { Drift } from '../projections/admin/read-model-diff.ts';
import type { ManagedReadStore } from '../projections/stores/managed-read-store.ts';
import type { EventStore } from '../events/event-store.ts';
import { openEventStore, openReadStore } from '../stores.ts';
import { CliError } from './cli-error.ts';
import { requireEventLog, requireReadModels } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';

/** One JSON line a difference: where (account, filter, model, v1 record, field) and both values. */
const driftLine = ({ account, filter, model, keyword, field, live, log }: Drift): string =>
  JSON.stringify({ account, filter, model, ...(keyword === undefined ? {} : { keyword }), field, live, log });

/** Mastodon mode: its filter tables against the log too (docs/mastodon.md#the-drift-check); null outside it. */
async function verifyMastodonTables(config: Config, events: EventStore, reads: ManagedReadStore): Promise<{ differences: number; checked: string } | null> {
  if (!config.mastodonDatabaseUrl) return null;
  const [{ openMastodonDatabase }, { MastodonFilterTables }, { checkMastodonTables }] = await Promise.all([
    import('../mastodon/mastodon-database.ts'),
    import('../projections/mastodon/mastodon-filter-tables.ts'),
    import('../projections/mastodon/mastodon-tables-check.ts'),
  ]);
  const pool = await openMastodonDatabase(config.mastodonDatabaseUrl);
  try {
    const tables = await MastodonFilterTables.open(pool);
    const report = await checkMastodonTables(events, reads, tables, (drift) => writeLine(JSON.stringify(drift)));
    const upTo = report.position === null ? 'no projected event' : `position ${report.position}`;
    return { differences: report.differences, checked: `${report.accounts} accounts, ${report.filters} filters in Mastodon's tables checked up to ${upTo}` };
  } finally {
    await pool.end();
  }
}

/**
 * `verify --read-models`: the differences on stdout as they are found, a summary on stderr, and exit 1
 * when there is any. The live read models are only read; the replay goes into a scratch generation.
 * In Mastodon mode, Mastodon's filter tables are compared with the log as well, on lines of model `mastodon`.
 */
export async function verifyReadModels(config: Config): Promise<void> {
  requireEventLog(config);
  requireReadModels(config);
  const events = await openEventStore(config);
  // The scratch generation is written like a rebuild's: nobody reads it, so its commits need not wait for the disk.
  const reads = await openReadStore(config, { bulk: true });
  try {
    const report = await checkReadModels(events, reads, { onDrift: (drift) => writeLine(driftLine(drift)) });
    const upTo = report.position === null ? 'no projected event (the read models hold no checkpoint)' : `position ${report.position}`;
    const checked = `${report.accounts} accounts, ${report.filters} filters checked against the log up to ${upTo} (${report.events} events replayed)`;
    const mastodon = await verifyMastodonTables(config, events, reads);
    if (report.differences > 0) throw new CliError(`the read models differ from the log in ${report.differences} places: ${checked}`);
    process.stderr.write(`read models match the log: ${checked}\n`);
    if (mastodon && mastodon.differences > 0)
      throw new CliError(`Mastodon's filter tables differ from the log in ${mastodon.differences} places: ${mastodon.checked}`);
    if (mastodon) process.stderr.write(`Mastodon's filter tables match the log: ${mastodon.checked}\n`);
  } finally {
    await Promise.all([events.close(), reads.close()]);
  }
}
