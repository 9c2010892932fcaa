import {
  CancelledError,
  DeadlineExceededError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  type AppendExpectedRevision,
  type AppendResult,
  type EventData,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import { asyncRetry, type BackOff } from '../shared/async-retry.ts';
import { EventStoreUnavailableError } from './event-store.ts';

/** How long an append whose outcome is unknown is retried before the caller is told so (a 503). */
export const UNKNOWN_OUTCOME_BUDGET_MS = 5_000;
const UNKNOWN_OUTCOME_BACK_OFF: BackOff = { firstMs: 50, maxMs: 500 };

/**
 * A node's refusal (ClientMessage.NotHandled: not ready, too busy) says the write was not made: Append
 * raises it as UnavailableError "Server Is Not Ready"/"Server Is Too Busy" (EventStore/EventStore v24.10.0
 * src/EventStore.Core/Services/Transport/Grpc/RpcExceptions.cs), BatchAppend as a Status with an Empty
 * detail (Streams.BatchAppend.cs 222-235) that @eventstore/db-client 6.2.1 turns into UnknownError
 * "Could not recognize Server Is Not Ready" (packages/db-client/src/streams/appendToStream/unpackError.ts).
 */
const REFUSED = /Server Is (Not Ready|Too Busy|Busy)/;

/**
 * Whether an append that failed this way may nonetheless have been made. A 24.10 server answers
 * Prepare/CommitTimeout after 2 s (RequestManagerBase.cs 157-162; ClusterVNodeOptions.cs 396-406) without
 * withdrawing the write, which goes on (BatchAppend: `Status.Timeout`, DeadlineExceededError; Append:
 * ABORTED, TimeoutError); the client's own deadline, a lost connection (UnavailableError), a call cancelled
 * on reconnect (CancelledError) and Status.Unknown (UnknownError) tell nothing either.
 */
export function isUnknownOutcome(error: unknown): boolean {
  if (error instanceof DeadlineExceededError || error instanceof TimeoutError || error instanceof CancelledError) return true;
  if (error instanceof UnavailableError || error instanceof UnknownError) return !REFUSED.test(error.message);
  return false;
}

/**
 * One append, made exactly once: when its outcome is unknown, the very same append (the same event ids,
 * the same expected revision) is sent again until the server says what happened, within `budgetMs`. A
 * repeat of an append already made is answered as the first was: for an exact revision or `no_stream` the
 * server finds the ids in the stream right after it (IndexWriter.cs 234-277), not in its bounded cache of
 * recent ids, so callers give an exact revision. Still unknown at the end: EventStoreUnavailableError.
 */
export async function appendExactlyOnce(
  client: EventStoreDBClient,
  stream: string,
  events: readonly EventData[],
  expectedRevision: AppendExpectedRevision,
  budgetMs = UNKNOWN_OUTCOME_BUDGET_MS,
): Promise<AppendResult> {
  try {
    return await asyncRetry(() => client.appendToStream(stream, [...events], { expectedRevision }), {
      backOff: UNKNOWN_OUTCOME_BACK_OFF,
      // No pause that would end past the budget: the caller hears by then.
      shouldRetryError: (error, { elapsedMs, pauseMs }) => isUnknownOutcome(error) && elapsedMs + pauseMs < budgetMs,
    });
  } catch (error) {
    // Only a spent budget lets an unknown outcome through.
    if (!isUnknownOutcome(error)) throw error;
    throw new EventStoreUnavailableError(`EventStoreDB: whether the append to ${stream} was made is unknown (${(error as Error).message})`);
  }
}
