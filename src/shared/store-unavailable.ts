/**
 * A shared store (accounts, webmail sessions, mail, login counters, rate-limit counters, OAuth,
 * Idempotency-Key records) could not be reached: retrying later may work. Matched by name, like the read
 * store's and event store's, as driver adapters load on demand.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** What the 503 says cannot be reached ("the rate-limit counters"). */
  readonly store: string;

  constructor(message: string, options?: ErrorOptions & { readonly store?: string }) {
    super(message, options);
    this.store = options?.store ?? 'the account store';
  }
}
