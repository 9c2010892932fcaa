import { ConflictError, RuleViolation, ValidationError } from '../commands/errors.ts';
import { accountUsageCheck } from '../commands/filter/account-usage-check.ts';
import { AccountUsageLedger } from '../commands/filter/account-usage-ledger.ts';
import { filterDecider } from '../commands/filter/decider.ts';
import { handleCommand } from '../commands/handle-command.ts';
import type { EventStore } from '../events/event-store.ts';
import { FILTER_EVENT_VERSIONS, readFilterEvent } from '../events/filter-event-versions.ts';
import { filterStream, type EventMetadata, type FilterEvent, type ImportedRow } from '../events/filter-events.ts';
import type { Logger } from '../shared/logger.ts';
import { importCommandOf, type RowsOfFilter } from './mastodon-filter-command.ts';
import type { MastodonFilterRows } from './mastodon-filter-rows.ts';

export type ImportOutcome =
  | { readonly kind: 'imported'; readonly filterId: string; readonly accountId: string; readonly keywords: number; readonly statuses: number }
  | { readonly kind: 'present'; readonly filterId: string; readonly accountId: string }
  | { readonly kind: 'skipped'; readonly filterId: string; readonly accountId: string; readonly reason: string };

export interface ImportRun {
  /** One per run of the command: every event it appends carries it, as a request's carry its request id. */
  readonly requestId: string;
  readonly importedAt: string;
}

/** The rows each event of an import commit stands for, with Mastodon's times, for its metadata. */
function rowsOf(event: FilterEvent, rows: RowsOfFilter): readonly ImportedRow[] {
  switch (event.type) {
    case 'FilterCreated':
      return [rows.filter];
    case 'KeywordsUpdated':
      return rows.keywords;
    case 'StatusFiltered':
      return rows.statuses.filter((row) => row.id === event.data.filterStatusId);
    default:
      return [];
  }
}

/** Refusals of the rules (the row is not a filter the API could store) end that filter, never the run. */
const refusal = (error: unknown): string | null =>
  error instanceof ValidationError || error instanceof RuleViolation || error instanceof ConflictError ? error.message : null;

/**
 * Mastodon's filters taken into the log, one commit per filter on the filter's own stream, with its ids
 * (`mastodon import`). Each is decided as a create is (the rules, the per-filter limits, and the
 * per-account limits on the account's usage ledger) and appended on a stream that must not exist yet,
 * so a filter is in the log whole or not at all: a run killed at any point, or two runs at once, leave
 * each filter imported once, and a run again finds them there. The events get fresh ids, not ids
 * derived from the filter's: with those, the loser of two runs at once would have its append answered
 * as a replay of the winner's (sqlite-replayed-append.ts, as EventStoreDB does), report the filter as
 * its own and keep its reservation on the usage ledger, which would then count the filter twice.
 * Mastodon's rows are only read. Outcomes come one per filter, in id order, as they are decided.
 */
export async function* importMastodonFilters(source: MastodonFilterRows, events: EventStore, run: ImportRun, logger: Logger): AsyncGenerator<ImportOutcome> {
  const ledger = new AccountUsageLedger(events);
  for await (const row of source.filters()) {
    const { id: filterId, accountId } = row;
    const prepared = await importCommandOf(row, source, run);
    if ('reason' in prepared) {
      yield { kind: 'skipped', filterId, accountId, reason: prepared.reason };
      continue;
    }
    const { command, rows } = prepared;
    try {
      const outcome = await handleCommand(events, filterDecider, filterStream(filterId), command, {
        readEvent: readFilterEvent,
        check: accountUsageCheck(ledger, { accountId, requestId: run.requestId }, logger),
        metadata: (commitIndex, commitSize, event): EventMetadata => ({
          accountId,
          requestId: run.requestId,
          apiVersion: 'cli',
          tokenId: null,
          commitIndex,
          commitSize,
          schemaVersion: FILTER_EVENT_VERSIONS[event.type],
          imported: { source: 'mastodon', importedAt: run.importedAt, rows: rowsOf(event, rows) },
        }),
      });
      if (outcome.events.length === 0) yield { kind: 'present', filterId, accountId };
      else yield { kind: 'imported', filterId, accountId, keywords: command.data.keywords.length, statuses: command.data.statuses.length };
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      yield { kind: 'skipped', filterId, accountId, reason };
    }
  }
}
