import { mongoCall } from '../../shared/mongo-connection.ts';
import { readModelsUnavailable } from './read-store.ts';

/** A read-model call through MongoDB's one translator (mongo-connection.ts): unavailability is ReadStoreUnavailableError. */
export const readModelCall = <T>(call: () => Promise<T>): Promise<T> => mongoCall('read models', call, readModelsUnavailable);
