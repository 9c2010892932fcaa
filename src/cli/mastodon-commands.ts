import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { pino } from 'pino';
import type { Config } from '../config.ts';
import { importMastodonFilters, type ImportOutcome } from '../mastodon/mastodon-filter-import.ts';
import { MastodonFilterRows } from '../mastodon/mastodon-filter-rows.ts';
import { openMastodonDatabase } from '../mastodon/mastodon-database.ts';
import { redact } from '../shared/redact.ts';
import { openEventStore } from '../stores.ts';
import { CliError } from './cli-error.ts';
import { requireEventLog } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';

/** Exit code of an import that ran to the end but left filters out (each named on stdout), apart from 1 (it could not run). */
export const FILTERS_SKIPPED_EXIT = 2;

const lineOf = (outcome: ImportOutcome): string => {
  const where = `filter ${outcome.filterId} (account ${outcome.accountId})`;
  if (outcome.kind === 'present') return `already in the log: ${where}`;
  if (outcome.kind === 'skipped') return `skipped ${where}: ${outcome.reason}`;
  const { keywords, statuses } = outcome;
  return `imported ${where}: ${keywords} keyword${keywords === 1 ? '' : 's'}, ${statuses} status${statuses === 1 ? '' : 'es'}`;
};

/**
 * `mastodon import`: the filters Mastodon's tables hold taken into the event log with their ids
 * (docs/mastodon.md, Importing). One line a filter on stdout as it is decided, the summary on stderr;
 * exit 0 when every filter is in the log, 2 when some were left out, 1 when it could not run.
 */
export function mastodonCommands(config: Config): Command {
  const mastodon = new Command('mastodon').description('Mastodon mode (MASTODON_DATABASE_URL): work with the Mastodon beside this service.');
  mastodon
    .command('import')
    .description("Import the filters in Mastodon's tables into the event log, keeping their ids; filters already in the log are left as they are.")
    .action(async () => {
      if (!config.mastodonDatabaseUrl) throw new CliError("mastodon import reads Mastodon's database: set MASTODON_DATABASE_URL (docs/mastodon.md)");
      requireEventLog(config);
      const pool = await openMastodonDatabase(config.mastodonDatabaseUrl);
      try {
        const source = new MastodonFilterRows(pool);
        const missing = await source.missingTables();
        if (missing.length > 0) throw new CliError(`MASTODON_DATABASE_URL has no ${missing.join(', ')} table: is it Mastodon's database?`);
        const events = await openEventStore(config);
        // Warnings (a usage ledger that could not record a release) go to stderr: stdout holds the result.
        const logger = pino({ level: 'warn', hooks: { streamWrite: redact } }, pino.destination({ dest: 2, sync: true }));
        const counts = { imported: 0, present: 0, skipped: 0 };
        try {
          const run = { requestId: randomUUID(), importedAt: new Date().toISOString() };
          for await (const outcome of importMastodonFilters(source, events, run, logger)) {
            counts[outcome.kind] += 1;
            await writeLine(lineOf(outcome));
          }
        } finally {
          await events.close();
        }
        const total = counts.imported + counts.present + counts.skipped;
        const summary = `${counts.imported} imported, ${counts.present} already in the log, ${counts.skipped} skipped, of ${total} filters in Mastodon's tables`;
        if (counts.skipped > 0) throw new CliError(`mastodon import left ${counts.skipped} filters out (each named above): ${summary}`, FILTERS_SKIPPED_EXIT);
        process.stderr.write(`mastodon import: ${summary}\n`);
      } finally {
        await pool.end();
      }
    });
  return mastodon;
}
