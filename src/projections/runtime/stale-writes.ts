import type { CatchUp } from './read-your-writes.ts';

export interface StaleWrite {
  /** The highest position answered before the read models had passed it. */
  readonly position: string;
  readonly answeredAt: string;
}

/**
 * Writes this process answered before the read models had taken them in (the read-your-writes wait
 * timed out): a read that followed such a write may not have seen it. Counted for ever, and reported as
 * outstanding until the checkpoint passes the highest of them.
 */
export class StaleWrites {
  private count = 0;
  private highest: { position: bigint; answeredAt: string } | null = null;

  get total(): number {
    return this.count;
  }

  record(position: bigint, answeredAt = new Date()): void {
    this.count += 1;
    if (!this.highest || position > this.highest.position) this.highest = { position, answeredAt: answeredAt.toISOString() };
  }

  /** The stale write the read models have still not passed, or null. */
  outstanding(checkpoint: bigint | null): StaleWrite | null {
    if (!this.highest) return null;
    if (checkpoint !== null && checkpoint >= this.highest.position) {
      this.highest = null;
      return null;
    }
    return { position: this.highest.position.toString(), answeredAt: this.highest.answeredAt };
  }
}

/** A CatchUp that records every wait that timed out, and tells `onTimeout` (the metric). */
export function recordingStaleWrites(inner: CatchUp, staleWrites: StaleWrites, onTimeout: () => void = () => {}): CatchUp {
  return {
    async waitFor(position, timeoutMs) {
      const caughtUp = await inner.waitFor(position, timeoutMs);
      if (!caughtUp) {
        staleWrites.record(position);
        onTimeout();
      }
      return caughtUp;
    },
  };
}
