import { MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

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
]);

/** Labels with which the server or the driver says "try again on a healthy node" (MongoErrorLabel). */
const RETRY_LABELS = ['RetryableWriteError', 'ResetPool', 'PoolRequestedRetry', 'SystemOverloadedError'];

/**
 * Whether a driver error means MongoDB could not serve the request now (unreachable, shutting down,
 * changing primary), rather than that the request itself failed: callers answer 503 and retry, and the
 * projector never parks a commit for it.
 */
export function isMongoUnavailable(error: unknown): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError
  ) {
    return true;
  }
  if (!(error instanceof MongoError)) return false;
  if (typeof error.code === 'number' && NODE_NOT_READY.has(error.code)) return true;
  return RETRY_LABELS.some((label) => error.hasErrorLabel(label));
}
