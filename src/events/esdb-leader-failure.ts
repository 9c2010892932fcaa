import { CancelledError, DeadlineExceededError, NotLeaderError, TimeoutError, UnavailableError } from '@eventstore/db-client';
import { asyncRetry, type BackOff } from '../shared/async-retry.ts';
import type { EsdbLeaderConnection } from './esdb-leader-connection.ts';

/**
 * "Server Is Not Ready": a node electing, catching up or cut off from its peers (EventStore/EventStore v24.10.0
 * src/EventStore.Core/Services/VNode/ClusterVNodeController.cs 155-159: writes in any state but leader and
 * follower; 679-689: reads that require the leader where no leader is known). Append and reads raise it as
 * UnavailableError (RpcExceptions.ServerNotReady), BatchAppend as UnknownError "Could not recognize ..."
 * (Streams.BatchAppend.cs 222-235; EventStore-Client-NodeJS unpackError.ts). The write was not taken.
 */
const NOT_READY = /Server Is Not Ready/;
/** The client's discovery found no node in the state asked for (Client/discovery.ts): no leader yet. */
const NO_NODE = /^Failed to discover after/;

/** The node refused the call as not ready, or no leader could be found: nothing was written. */
export const isNotReady = (error: unknown): boolean => error instanceof Error && (NOT_READY.test(error.message) || NO_NODE.test(error.message));

/**
 * Whether the failure says the client is not on a working leader, so it should rediscover: not ready, no
 * answer in time (a deadline or the server's 2 s prepare/commit timeout: maybe a leader that is cut off or
 * swamped). NotLeader and a lost connection the client acts on by itself (it reconnects to the named leader,
 * or rediscovers); they are retried, not moved on from twice.
 */
export const callsForNewLeader = (error: unknown): boolean => isNotReady(error) || error instanceof DeadlineExceededError || error instanceof TimeoutError;

/** Failures after which the same call, made again, may reach a leader: retried within the caller's budget. */
export const worthRetrying = (error: unknown): boolean =>
  callsForNewLeader(error) || error instanceof NotLeaderError || (error instanceof UnavailableError && !/Too Busy/.test(error.message));

/** Between tries on the leader: 50 ms doubling to 0.5 s, well inside a 3.5 s election (the 24.10 defaults). */
export const LEADER_BACK_OFF: BackOff = { firstMs: 50, maxMs: 500 };

/**
 * Runs `call` (given the time left of `budgetMs`, for its deadline) until it succeeds, its failure is not
 * one that a leader elsewhere may cure (`worthRetrying`) nor one `alsoRetry` accepts, or the next pause would
 * end past the budget; then the last error is thrown. Rediscovers where the failure calls for it.
 *
 * A cancelled call is made again, as long as the connection is not closed: the client cancels its calls in flight
 * when it reconnects by itself (a subscription on the same channel lost its node) and when a concurrent call
 * moved the connection on (the old client is disposed). Under load a read racing an election otherwise
 * reached the caller as a 503.
 */
export function onLeader<T>(
  connection: EsdbLeaderConnection,
  budgetMs: number,
  call: (leftMs: number) => Promise<T>,
  alsoRetry: (error: unknown) => boolean = () => false,
): Promise<T> {
  const until = Date.now() + budgetMs;
  let seen = connection.seen;
  return asyncRetry(
    () => {
      seen = connection.seen;
      return call(Math.max(1, until - Date.now()));
    },
    {
      backOff: LEADER_BACK_OFF,
      shouldRetryError: (error, { elapsedMs, pauseMs }) => {
        // After close() nothing is made again, an append of unknown outcome included: its caller is gone.
        if (connection.closed) return false;
        const also = alsoRetry(error) || error instanceof CancelledError;
        if (!also && !worthRetrying(error)) return false;
        if (callsForNewLeader(error)) connection.moveOn(seen);
        return elapsedMs + pauseMs < budgetMs;
      },
    },
  );
}

/**
 * A read the service's own writes depend on, made of the leader (`requiresLeader` in `read`): a follower or a
 * cut-off node would answer from its lagging copy. Retried while the failure says the leader is elsewhere,
 * rediscovering as it goes, until `budgetMs` is spent; then the last error is thrown.
 */
export function readFromLeader<T>(connection: EsdbLeaderConnection, budgetMs: number, read: () => Promise<T>): Promise<T> {
  return onLeader(connection, budgetMs, () => read());
}
