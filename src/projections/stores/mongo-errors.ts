import { isMongoUnavailable } from '../../shared/mongo-unavailable.ts';
import { ReadStoreUnavailableError } from './read-store.ts';

/** The driver's ways of saying the server cannot serve now (mongo-unavailable.ts); every other error is about the request. */
export function translateMongoError(error: unknown): unknown {
  if (isMongoUnavailable(error) && error instanceof Error) {
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
