/**
 * A lease holder's fencing token: issued by the store when a lease is taken, larger than every token
 * issued for that lease before. A write carrying it is refused once the store has seen a larger one, so a
 * former holder (paused past its lease, or with a skewed clock) cannot overwrite its successor's work.
 */
export interface Fence {
  readonly lease: string;
  readonly token: number;
}

/** The store refused a write: a later holder of the lease has written or taken the lease since. */
export class FencedOffError extends Error {
  override readonly name = 'FencedOffError';

  constructor(
    readonly fence: Fence,
    readonly current: number,
  ) {
    super(`write refused: lease ${fence.lease} is held with fencing token ${current}, this writer has ${fence.token}`);
  }
}
