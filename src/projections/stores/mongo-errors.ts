import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { ReadStoreUnavailableError } from './read-store.ts';

/** The driver's ways of saying the server could not be reached; every other error is about the request. */
export function translateMongoError(error: unknown): unknown {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError
  ) {
    return new ReadStoreUnavailableError(`read models (MongoDB): ${error.message}`, { cause: error });
  }
  return error;
}

export async function mongoCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateMongoError(error);
  }
}
