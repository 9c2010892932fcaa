export type { LoginRateLimit } from '../../accounts/login-rate-limit.ts';

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
