import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  NotLeaderError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  isCommandError,
} from '@eventstore/db-client';
import { ConcurrencyError, EventStoreUnavailableError, type ExpectedRevision } from './event-store.ts';

/**
 * Errors that say the server could not take or answer the call now, not that the call was wrong; a retry
 * may succeed. An append of unknown outcome is retried by the adapter itself before it gets here
 * (esdb-unknown-outcome.ts), as the same append at the same exact revision, which writes nothing twice.
 * - UnavailableError: no connection, or a node answering "Server Is Not Ready"/"Server Is Too Busy" to
 *   Append (EventStore/EventStore v24.10.0 src/EventStore.Core/Services/Transport/Grpc/RpcExceptions.cs).
 * - UnknownError: BatchAppend answers those refusals with a Status whose detail is an Empty
 *   (Streams.BatchAppend.cs), which @eventstore/db-client 6.2 cannot recognise
 *   (EventStore/EventStore-Client-NodeJS packages/db-client/src/streams/appendToStream/unpackError.ts), and
 *   Status.Unknown is a write whose outcome the server does not know.
 * - CancelledError: the client cancels calls in flight when it reconnects (packages/db-client/src/Client).
 * - DeadlineExceededError, TimeoutError, NotLeaderError: no answer in time, or a follower was asked.
 */
const UNREACHABLE = [UnavailableError, DeadlineExceededError, TimeoutError, NotLeaderError, CancelledError, UnknownError];

/**
 * The port's error for what the EventStoreDB client threw. AccessDenied is unavailability with a reason of
 * its own: reading $all needs an admin or system user on a secured server
 * (src/EventStore.Core/Authorization/LegacyStreamPermissionAssertion.cs), and no retry fixes credentials.
 */
export function translateEsdbError(error: unknown, streamName?: string, expected?: ExpectedRevision): Error {
  if (error instanceof EventStoreUnavailableError) return error;
  if (error instanceof WrongExpectedVersionError && streamName !== undefined && expected !== undefined) {
    return new ConcurrencyError(streamName, expected, error.actualVersion);
  }
  if (error instanceof AccessDeniedError) {
    return new EventStoreUnavailableError(`EventStoreDB: access denied (${error.message}); the service's user needs read access to $all`, 'access_denied');
  }
  if (error instanceof Error && (!isCommandError(error) || UNREACHABLE.some((type) => error instanceof type))) {
    return new EventStoreUnavailableError(`EventStoreDB: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
