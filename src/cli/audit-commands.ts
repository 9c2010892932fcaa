import { Command } from 'commander';
import type { Config } from '../config.ts';
import { eventHistory, historyLine } from '../events/event-history.ts';
import type { LogPoint } from '../events/log-point.ts';
import { filterJson } from '../http/serializers.ts';
import { replayFiltersAsOf } from '../projections/admin/filters-as-of.ts';
import { openEventStore } from '../stores.ts';
import { accountId } from './account-lookup.ts';
import { idArgument, logPointArgument } from './cli-arguments.ts';
import { requireEventLog } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';

/** `events` and `filters --as-of`: read-only views of the event log, from either event store. */
export function auditCommands(config: Config): Command[] {
  const events = new Command('events')
    .description('Print the event history as NDJSON: type, stream, revision, position, time, data, metadata.')
    .option('--account <username-or-id>', 'only events of filters this account owns')
    .option('--filter <id>', 'only events of this filter', idArgument)
    .option('--since <position|time>', 'only events after this global position, or recorded at or after this ISO-8601 time', logPointArgument)
    .action(async (options: { account?: string; filter?: string; since?: LogPoint }) => {
      requireEventLog(config);
      const account = options.account === undefined ? undefined : await accountId(config, options.account);
      const store = await openEventStore(config);
      try {
        const query = { accountId: account, filterId: options.filter, since: options.since };
        for await (const event of eventHistory(store, query)) await writeLine(historyLine(event));
      } finally {
        await store.close();
      }
    });

  const filters = new Command('filters')
    .description("Print an account's v2 filters as they stood at a moment, replayed from the event log (JSON, as GET /api/v2/filters).")
    .requiredOption('--account <username-or-id>', 'the account')
    .requiredOption('--as-of <position|time>', 'a global position (inclusive), an ISO-8601 time, or a date (its midnight, UTC)', logPointArgument)
    .action(async (options: { account: string; asOf: LogPoint }) => {
      requireEventLog(config);
      const account = await accountId(config, options.account);
      const store = await openEventStore(config);
      try {
        const { views, position } = await replayFiltersAsOf(store, account, options.asOf);
        await writeLine(JSON.stringify(views.map(filterJson), null, 2));
        // On stderr, so the JSON on stdout stays what GET /api/v2/filters answered.
        const asked = 'position' in options.asOf ? `position ${options.asOf.position}` : options.asOf.time.toISOString();
        process.stderr.write(
          position === null
            ? `as of ${asked}: no event of this account's filters at or before it\n`
            : `as of ${asked}: replayed this account's filters up to position ${position}\n`,
        );
      } finally {
        await store.close();
      }
    });
  return [events, filters];
}
