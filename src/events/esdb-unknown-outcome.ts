import {
  CancelledError,
  DeadlineExceededError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  type AppendExpectedRevision,
  type AppendResult,
  type EventData,
} from '@eventstore/db-client';
import { EventStoreUnavailableError } from './event-store.ts';
import type { EsdbLeaderConnection } from './esdb-leader-connection.ts';
import { isNotReady, onLeader, worthRetrying } from './esdb-leader-failure.ts';

/** How long an append whose outcome is unknown is retried before the caller is told so (a 503). */
export const UNKNOWN_OUTCOME_BUDGET_MS = 5_000;

/** A node's refusal (ClientMessage.NotHandled: not ready, too busy) says the write was not made. */
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
 * One append, made exactly once, of the leader (`requiresLeader`: a follower would forward it, and a node cut
 * off from its peers refuses it). When its outcome is unknown, or the node was not the leader or not ready,
 * the very same append (the same event ids, the same expected revision) is sent again, rediscovering the
 * leader where the failure calls for it (esdb-leader-failure.ts), until the server says what happened,
 * within `budgetMs`. A repeat of an append already made is answered as the first was: for an exact revision
 * or `no_stream` the server finds the ids in the stream right after it (IndexWriter.cs 234-277), not in its
 * bounded cache of recent ids, so callers give an exact revision. A repeat right after a failover, whose
 * original the new leader has not indexed yet, is dropped without an answer (IndexWriter.cs 273-274,
 * StorageWriterService.cs 684-688): its timeout is one more unknown outcome, and a later repeat is answered.
 * Still unknown at the end: EventStoreUnavailableError.
 */
export async function appendExactlyOnce(
  connection: EsdbLeaderConnection,
  stream: string,
  events: readonly EventData[],
  expectedRevision: AppendExpectedRevision,
  budgetMs = UNKNOWN_OUTCOME_BUDGET_MS,
): Promise<AppendResult> {
  let unknown = false;
  const alsoUnknown = (error: unknown) => {
    const maybeMade = isUnknownOutcome(error);
    unknown ||= maybeMade && !isNotReady(error);
    return maybeMade;
  };
  try {
    return await onLeader(
      connection,
      budgetMs,
      (leftMs) => connection.client.appendToStream(stream, [...events], { expectedRevision, requiresLeader: true, deadline: leftMs }),
      alsoUnknown,
    );
  } catch (error) {
    // Only a spent budget lets an unknown outcome or a missing leader through.
    if (!isUnknownOutcome(error) && !worthRetrying(error)) throw error;
    const what = unknown ? `whether the append to ${stream} was made is unknown` : `no leader took the append to ${stream}`;
    throw new EventStoreUnavailableError(`EventStoreDB: ${what} (${(error as Error).message})`);
  }
}
