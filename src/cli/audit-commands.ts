import { Command, Option } from 'commander';
import type { Config } from '../config.ts';
import { eventHistory, historyLine } from '../events/event-history.ts';
import type { LogPoint } from '../events/log-point.ts';
import { filterJson } from '../http/serializers.ts';
import { replayFiltersAsOf } from '../projections/admin/filters-as-of.ts';
import { openEventStore } from '../stores.ts';
import { accountId } from './account-lookup.ts';
import { HISTORY_EVENT_TYPES } from '../events/history-event-types.ts';
import { eventTypesArgument, idArgument, logPointArgument } from './cli-arguments.ts';
import { historyTable } from './history-table.ts';
import { requireEventLog } from './existing-stores.ts';
import { writeLine } from './stdout-lines.ts';

interface EventsOptions {
  readonly account?: string;
  readonly filter?: string;
  readonly since?: LogPoint;
  readonly until?: LogPoint;
  readonly type?: ReadonlySet<string>;
  readonly format?: 'json' | 'table';
}

/** `events` and `filters --as-of`: read-only views of the event log, from either event store. */
export function auditCommands(config: Config): Command[] {
  const events = new Command('events')
    .description('Print the event history as NDJSON: type, stream, revision, position, time, data, metadata.')
    .option('--account <username-or-id>', 'only events of filters this account owns')
    .option('--filter <id>', 'only events of this filter', idArgument)
    .option('--since <position|time>', 'only events after this global position, or recorded at or after this ISO-8601 time', logPointArgument)
    .option('--until <position|time>', 'only events up to and including this global position, or recorded at or before this time', logPointArgument)
    .option(
      '--type <Type>',
      `only events of this type (repeat it, or separate types by commas): ${HISTORY_EVENT_TYPES.join(', ')}`,
      eventTypesArgument(HISTORY_EVENT_TYPES),
    )
    .addOption(
      new Option('--format <format>', 'json: one JSON object a line; table: aligned columns (default: table on a terminal, else json)').choices([
        'json',
        'table',
      ]),
    )
    .action(async (options: EventsOptions) => {
      requireEventLog(config);
      const account = options.account === undefined ? undefined : await accountId(config, options.account);
      const store = await openEventStore(config);
      try {
        const query = { accountId: account, filterId: options.filter, since: options.since, until: options.until, types: options.type };
        const format = options.format ?? (process.stdout.isTTY ? 'table' : 'json');
        // EventStoreDB positions have up to 39 digits; SQLite's fit in 20.
        const table = format === 'table' ? historyTable(config.eventStoreUrl ? 39 : 20) : null;
        if (table) await writeLine(table.header);
        for await (const event of eventHistory(store, query)) await writeLine(table ? table.row(event) : historyLine(event));
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
