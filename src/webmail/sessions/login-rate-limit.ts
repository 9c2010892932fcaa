/**
 * Roundcube's login_rate_limit: each account's failed logins are counted in a window that starts at the
 * first failure; once `limit` failures fall in a window younger than `windowMillis`, logins are refused
 * (the right password too) until the window is over. Kept in memory: a restart forgives.
 */
export class LoginRateLimit {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMillis: number,
    private readonly now: () => number = Date.now,
  ) {}

  isLocked(accountId: string): boolean {
    if (this.limit === 0) return false;
    const window = this.windows.get(accountId);
    return window !== undefined && window.failures >= this.limit && this.now() - window.start < this.windowMillis;
  }

  recordFailure(accountId: string): void {
    const window = this.windows.get(accountId);
    if (window && this.now() - window.start < this.windowMillis) {
      window.failures += 1;
    } else {
      this.windows.set(accountId, { start: this.now(), failures: 1 });
    }
  }

  forget(accountId: string): void {
    this.windows.delete(accountId);
  }
}
