const STORE_UNAVAILABLE = 'STORE_UNAVAILABLE';

/** Why a store cannot serve: away for now (retrying may work), or refusing this service's credentials. */
export type UnavailableReason = 'unreachable' | 'access_denied';

export interface StoreUnavailableOptions extends ErrorOptions {
  /** What the 503 says cannot be reached ("the rate-limit counters"). */
  readonly store?: string;
  readonly reason?: UnavailableReason;
}

/**
 * A store could not be reached or used at all (connection lost, disk I/O, a lock held too long): nothing
 * is learnt about the data, and retrying later may work. The one "unavailable" of src, as Emmett has one
 * `EmmettError` (event-driven-io/emmett src/packages/emmett/src/errors/index.ts) told apart by a field:
 * here `store` and `reason`. Each driver's errors become it in one translator (SQLite: sqlite-busy.ts,
 * MongoDB: mongo-connection.ts, PostgreSQL: mastodon/postgres-errors.ts, EventStoreDB: esdb-errors.ts, Redis and
 * NATS in their adapters). The event store's and the read models' are subclasses of it. Matched by its
 * structural code (`isStoreUnavailable`), not `instanceof`: under mocha, tsx loads a module that
 * src/stores.ts imports on demand (the EventStoreDB adapter) a second time, and its errors' classes are
 * then other classes than the ones the HTTP layer imported (test/events/esdb-refusals.spec.ts fails so).
 */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
  readonly errorCode = STORE_UNAVAILABLE;
  readonly store: string;
  readonly reason: UnavailableReason;

  constructor(message: string, options?: StoreUnavailableOptions) {
    super(message, options);
    this.store = options?.store ?? 'the account store';
    this.reason = options?.reason ?? 'unreachable';
  }
}

/** Whether `error` is a StoreUnavailableError, of any module instance, and of `store` when given (Emmett's `EmmettError.isInstanceOf`). */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError;
// Not a type guard with a store: false says nothing of the error's type.
export function isStoreUnavailable(error: unknown, store: string): boolean;
export function isStoreUnavailable(error: unknown, store?: string): boolean {
  if (!(error instanceof Error)) return false;
  const { errorCode, store: named } = error as { errorCode?: unknown; store?: unknown };
  return errorCode === STORE_UNAVAILABLE && typeof named === 'string' && (store === undefined || named === store);
}

/** How a translator makes its store's error from a message and the driver's error. */
export type UnavailableOf = (message: string, cause: unknown) => StoreUnavailableError;

/** A shared store's (accounts, webmail, OAuth ...): `shownAs` is what its 503 names. */
export const sharedStoreUnavailable =
  (shownAs?: string): UnavailableOf =>
  (message, cause) =>
    new StoreUnavailableError(message, { cause, ...(shownAs ? { store: shownAs } : {}) });
