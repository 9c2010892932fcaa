import { randomUUID } from 'node:crypto';
import { commandEventId } from '../commands/command-event-ids.ts';
import type { FilterCommand } from '../commands/filter/commands.ts';
import { filterDecider } from '../commands/filter/decider.ts';
import type { ActiveFilter, FilterState } from '../commands/filter/filter-state.ts';
import { handleCommand, type CommandOutcome } from '../commands/handle-command.ts';
import { NotFoundError } from '../commands/errors.ts';
import type { StreamStateCache } from '../commands/stream-state-cache.ts';
import type { EventStore } from '../events/event-store.ts';
import { FILTER_EVENT_VERSIONS, readFilterEvent } from '../events/filter-event-versions.ts';
import { filterStream, type EventMetadata, type FilterEvent } from '../events/filter-events.ts';
import type { CatchUp } from '../projections/runtime/read-your-writes.ts';
import type { Logger } from '../shared/logger.ts';
import { accountUsageCheck } from '../commands/filter/account-usage-check.ts';
import { growsAccount, usageLedgerOf } from './account-usage.ts';

export interface Caller {
  readonly accountId: string;
  readonly tokenId: string | null;
  readonly requestId: string;
  readonly apiVersion: EventMetadata['apiVersion'];
}

export interface FilterCommandDeps {
  readonly events: EventStore;
  readonly catchUp: CatchUp;
  readonly logger: Logger;
  /** How long a write waits for the read models before answering anyway. */
  readonly catchUpTimeoutMs?: number;
  /** Filters' folded states, so a command reads only the events its stream got since (none: the whole stream). */
  readonly filterStates?: StreamStateCache<FilterState>;
}

/** Which run of which command this is: its events' ids come from the command id and start (command-event-ids.ts). */
export interface CommandRun {
  readonly commandId: string;
  readonly startedAtMs: number;
  /** A repeat of a command that may have been stored already (a repeated Idempotency-Key). */
  readonly mayHaveRun: boolean;
}

export interface FilterCommandResult {
  /** The filter after the command, or null when it was deleted. */
  readonly filter: ActiveFilter | null;
  readonly changed: boolean;
}

/**
 * Runs a command on a filter's stream, then waits until the read models have passed the append, so any
 * request that follows sees this one. The answer itself comes from the stream, so it is right even if
 * the wait times out.
 */
export async function runFilterCommand(
  deps: FilterCommandDeps,
  caller: Caller,
  command: FilterCommand,
  run: CommandRun = { commandId: randomUUID(), startedAtMs: Date.now(), mayHaveRun: false },
): Promise<FilterCommandResult> {
  const outcome = await decideCommand(deps, caller, command, run);
  if (outcome.position !== null) {
    const caughtUp = await deps.catchUp.waitFor(outcome.position, deps.catchUpTimeoutMs ?? 5000);
    if (!caughtUp) deps.logger.warn({ requestId: caller.requestId, position: outcome.position.toString() }, 'read models lag behind a write');
  }
  const { state } = outcome;
  if (state.phase === 'active') return { filter: state, changed: outcome.events.length > 0 };
  if (state.phase === 'deleted') return { filter: null, changed: outcome.events.length > 0 };
  throw new NotFoundError();
}

/** The command decided and appended on its filter's stream, the account's limits judged on its usage ledger. */
function decideCommand(deps: FilterCommandDeps, caller: Caller, command: FilterCommand, run: CommandRun): Promise<CommandOutcome<FilterState, FilterEvent>> {
  return handleCommand(deps.events, filterDecider, filterStream(command.data.filterId), command, {
    readEvent: readFilterEvent,
    eventId: (index) => commandEventId(run.commandId, run.startedAtMs, index),
    mayHaveRun: run.mayHaveRun,
    check: accountUsageCheck(
      usageLedgerOf(deps.events),
      { accountId: command.data.accountId, requestId: caller.requestId },
      deps.logger,
      growsAccount(command),
    ),
    ...(deps.filterStates ? { states: deps.filterStates } : {}),
    metadata: (commitIndex, commitSize, event): EventMetadata => ({
      accountId: caller.accountId,
      requestId: caller.requestId,
      apiVersion: caller.apiVersion,
      tokenId: caller.tokenId,
      commitIndex,
      commitSize,
      schemaVersion: FILTER_EVENT_VERSIONS[event.type],
    }),
  });
}
