import { randomUUID } from 'node:crypto';
import { commandEventId } from '../commands/command-event-ids.ts';
import type { FilterCommand } from '../commands/filter/commands.ts';
import { filterDecider } from '../commands/filter/decider.ts';
import type { ActiveFilter, FilterState } from '../commands/filter/filter-state.ts';
import { handleCommand } from '../commands/handle-command.ts';
import { NotFoundError } from '../commands/errors.ts';
import type { StreamStateCache } from '../commands/stream-state-cache.ts';
import type { EventStore } from '../events/event-store.ts';
import { FILTER_EVENT_VERSIONS, readFilterEvent } from '../events/filter-event-versions.ts';
import { filterStream, type EventMetadata } from '../events/filter-events.ts';
import type { CatchUp } from '../projections/runtime/read-your-writes.ts';
import type { ReadStore } from '../projections/stores/read-store.ts';
import type { KeyedLock } from '../shared/keyed-lock.ts';
import type { Logger } from '../shared/logger.ts';
import { accountUsage, growsAccount } from './account-usage.ts';

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
  /** Where the per-account limits are judged from (absent: they are not). */
  readonly reads?: Pick<ReadStore, 'accountUsage'>;
  /** Runs one account's growing commands one at a time, so each is judged after the one before. */
  readonly accountWrites?: KeyedLock;
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
  const { reads } = deps;
  if (!reads || !growsAccount(command)) return runCommand(deps, caller, command, run);
  const judged = async () => {
    const usage = await accountUsage(reads, command.data.accountId, command.data.filterId);
    return runCommand(deps, caller, { ...command, data: { ...command.data, accountUsage: usage } } as FilterCommand, run);
  };
  return deps.accountWrites ? deps.accountWrites.run(command.data.accountId, judged) : judged();
}

async function runCommand(deps: FilterCommandDeps, caller: Caller, command: FilterCommand, run: CommandRun): Promise<FilterCommandResult> {
  const outcome = await handleCommand(deps.events, filterDecider, filterStream(command.data.filterId), command, {
    readEvent: readFilterEvent,
    eventId: (index) => commandEventId(run.commandId, run.startedAtMs, index),
    mayHaveRun: run.mayHaveRun,
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
  if (outcome.position !== null) {
    const caughtUp = await deps.catchUp.waitFor(outcome.position, deps.catchUpTimeoutMs ?? 5000);
    if (!caughtUp) deps.logger.warn({ requestId: caller.requestId, position: outcome.position.toString() }, 'read models lag behind a write');
  }
  const { state } = outcome;
  if (state.phase === 'active') return { filter: state, changed: outcome.events.length > 0 };
  if (state.phase === 'deleted') return { filter: null, changed: outcome.events.length > 0 };
  throw new NotFoundError();
}
