interface Waiter {
  readonly position: bigint;
  readonly resolve: (reached: boolean) => void;
}

/**
 * Everyone waiting for a position of the log to be reached (stored, announced): `settle` lets go of
 * those at or below a position, a time-out or `releaseAll` of the others. A wait resolves true or false
 * and never rejects: what is waited for has committed, so no answer of it may become an error.
 */
export class PositionWaiters {
  private waiters: Waiter[] = [];

  get size(): number {
    return this.waiters.length;
  }

  /**
   * Resolves true once `settle` reaches `position`; false after `timeoutMs` (if given, then `onTimeout`
   * runs once the waiter is gone) or on `releaseAll(false)`. Registers before it returns.
   */
  wait(position: bigint, timeoutMs?: number, onTimeout?: () => void): Promise<boolean> {
    return new Promise((resolve) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.waiters = this.waiters.filter((w) => w !== waiter);
              onTimeout?.();
              resolve(false);
            }, timeoutMs);
      const waiter: Waiter = {
        position,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves (true) everyone waiting for `position` or less; returns how many that was. */
  settle(position: bigint): number {
    const ready = this.waiters.filter((w) => w.position <= position);
    if (ready.length === 0) return 0;
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve(true);
    return ready.length;
  }

  /** Resolves everyone still waiting with `reached`. */
  releaseAll(reached: boolean): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve(reached);
  }
}
