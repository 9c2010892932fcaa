/** Who holds a lease, and until when (milliseconds since the epoch, by the store's clock). */
export interface LeaseHolder {
  readonly owner: string;
  readonly expiresAt: number;
  /** The fencing token issued when the holder took the lease (fencing.ts); absent where the store issues none. */
  readonly fence?: number;
  /** The store's own time when it answered, where it has a clock of its own: expiry is judged against it. */
  readonly storeTime?: number;
}

/**
 * Named leases in a store every process shares: at most one owner holds a name at a time, and renews
 * it well before it expires; a crashed owner's lease is taken over once it has expired, or at once by a
 * process that can tell the owner is dead (see process-identity.ts).
 */
export interface Leases {
  /** Takes the lease, or renews it when `owner` holds it; false while another owner's lease runs. */
  tryLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once, so a successor need not wait for it to expire. */
  releaseLease(name: string, owner: string): Promise<void>;
  /** The current holder, expired or not; null when nobody holds it. */
  leaseHolder(name: string): Promise<LeaseHolder | null>;
  /** Takes the lease from `from` whatever its expiry, only if `from` still holds it; false otherwise. */
  takeOverLease(name: string, from: string, owner: string, ttlMs: number): Promise<boolean>;
}
