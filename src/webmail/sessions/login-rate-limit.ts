/**
 * Roundcube's login_rate_limit (rcube_user::failed_login / is_locked): each account's failed logins are
 * counted in a window that starts at the first failure; once `limit` failures fall in a window younger
 * than `windowMillis`, logins are refused (the right password too) until the window is over. Roundcube
 * keeps the counters in its `users` table; here they live in the shared store (SQLite in DATA_DIR, or
 * MongoDB), so every API process refuses alike and a restart forgives nothing.
 */
export interface LoginRateLimit {
  isLocked(accountId: string): Promise<boolean>;
  /** Counts one failure: in the running window, or as the first of a new one once the old one is over. */
  recordFailure(accountId: string): Promise<void>;
  /** A successful login clears the account's counter. */
  forget(accountId: string): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimitPolicy {
  /** Failures that lock the account; 0 turns the limit off. */
  readonly limit: number;
  readonly windowMillis: number;
  /** The clock windows are measured by (tests move it instead of waiting). */
  readonly now?: () => number;
}

/** A window as stored: when it started, and how many failures fell in it. */
export interface FailureWindow {
  readonly start: number;
  readonly failures: number;
}

/** The one rule both adapters apply to what they read. */
export function isLockedBy(window: FailureWindow | null, policy: RateLimitPolicy, now: number): boolean {
  if (policy.limit === 0 || window === null) return false;
  return window.failures >= policy.limit && now - window.start < policy.windowMillis;
}
