import { DeadlineExceededError, NotLeaderError, TimeoutError, UnavailableError } from '@eventstore/db-client';
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

const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 500;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A read the service's own writes depend on, made of the leader (`requiresLeader` in `read`): a follower or a
 * cut-off node would answer from its lagging copy. Retried while the failure says the leader is elsewhere,
 * rediscovering as it goes, until `budgetMs` is spent; then the last error is thrown.
 */
export async function readFromLeader<T>(connection: EsdbLeaderConnection, budgetMs: number, read: () => Promise<T>): Promise<T> {
  const until = Date.now() + budgetMs;
  for (let wait = FIRST_PAUSE_MS; ; wait = Math.min(wait * 2, LONGEST_PAUSE_MS)) {
    const seen = connection.seen;
    try {
      return await read();
    } catch (error) {
      if (!worthRetrying(error)) throw error;
      if (callsForNewLeader(error)) connection.moveOn(seen);
      if (Date.now() + wait >= until) throw error;
      await pause(wait);
    }
  }
}

export { FIRST_PAUSE_MS, LONGEST_PAUSE_MS, pause };
