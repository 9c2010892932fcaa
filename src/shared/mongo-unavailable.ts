import {
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * Codes a server answers while it shuts down, steps down or is not (yet) the primary: the categories
 * ShutdownError, NotPrimaryError and the network codes of RetriableError in mongod's
 * src/mongo/base/error_codes.yml, the same list the driver retries reads and writes on
 * (RETRYABLE_READ_ERROR_CODES in mongodb/lib/error.js). The request was fine; the node was not ready.
 */
const NODE_NOT_READY = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  134, // ReadConcernMajorityNotAvailableYet
  // A writeConcernError: the primary applied the write but not enough members confirmed it in time
  // (mongo/src/mongo/db/write_concern.cpp, waitForWriteConcern). Not acknowledged, so not promised:
  // the caller retries (every write of the adapters may be repeated) instead of reporting a fault.
  64, // WriteConcernTimeout (formerly WriteConcernFailed)
]);

/** Labels with which the server or the driver says "try again on a healthy node" (MongoErrorLabel). */
const RETRY_LABELS = ['RetryableWriteError', 'ResetPool', 'PoolRequestedRetry', 'SystemOverloadedError'];

/**
 * The driver's errors that say the connection, the pool or the topology failed, never the request:
 * a socket closed or timed out (MongoNetworkError, MongoNetworkTimeoutError, PoolClearedError), no
 * server selectable, a client or server closed while a request was waiting, a primary older than the
 * one already seen, an operation's own time limit (timeoutMS) spent.
 */
const NETWORK_CAUSED = [
  MongoNetworkError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoNotConnectedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoStalePrimaryError,
  MongoOperationTimeoutError,
];

/**
 * Whether a driver error means MongoDB could not serve the request now (unreachable, shutting down,
 * changing primary, hung), rather than that the request itself failed: callers answer 503 and retry, and
 * the projector never parks a commit for it. The driver wraps: a bulkWrite that lost its socket throws a
 * MongoBulkWriteError with no code and no label whose `errorResponse` is the network error
 * (mongodb/lib/bulk/common.js, executeCommands: `new MongoBulkWriteError(thrownError, ...)`), so the
 * cause is looked for through `errorResponse` and `cause`.
 */
export function isMongoUnavailable(error: unknown, depth = 0): boolean {
  if (NETWORK_CAUSED.some((kind) => error instanceof kind)) return true;
  if (!(error instanceof MongoError)) return false;
  if (typeof error.code === 'number' && NODE_NOT_READY.has(error.code)) return true;
  if (RETRY_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (depth >= 3) return false;
  const wrapped = [(error as { errorResponse?: unknown }).errorResponse, error.cause];
  return wrapped.some((inner) => inner instanceof Error && inner !== error && isMongoUnavailable(inner, depth + 1));
}
