/**
 * A shared store (accounts, webmail sessions, mail, login counters) could not be reached: retrying later
 * may work. Matched by name, like the read store's and event store's, as driver adapters load on demand.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
