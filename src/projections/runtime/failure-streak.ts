/** How often a failure that keeps happening is logged again. */
export const LOG_AGAIN_MS = 30_000;

/**
 * Failures in a row, and whether the latest deserves a log line: the first of a streak always does, a
 * later one once per `LOG_AGAIN_MS`, so a long outage says it goes on without flooding the log.
 */
export class FailureStreak {
  private count = 0;
  private lastLogged = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Failures since the last success. */
  get failures(): number {
    return this.count;
  }

  /** Counts one more failure; true when it is to be logged. */
  failed(): boolean {
    this.count += 1;
    const now = this.now();
    if (this.count > 1 && now - this.lastLogged < LOG_AGAIN_MS) return false;
    this.lastLogged = now;
    return true;
  }

  succeeded(): void {
    this.count = 0;
  }
}
