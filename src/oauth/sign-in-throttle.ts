import type { Context } from 'koa';
import { BatchedCounter } from '../rate-limits/batched-counter.ts';
import { setRateLimitHeaders } from '../rate-limits/rate-limit-headers.ts';
import type { RateLimitStore } from '../rate-limits/rate-limit-store.ts';
import { windowOf } from '../rate-limits/throttles.ts';

/** Mastodon's `throttle_login_attempts/email` (config/initializers/rack_attack.rb): 25 per hour. */
export const ACCOUNT_SIGN_IN_LIMIT = 25;
export const ACCOUNT_SIGN_IN_PERIOD_SECONDS = 60 * 60;
const NAME = 'throttle_login_attempts/account';
/** Attempts per hour from a browser that signed the name in before (its device cookie): OWASP's device budget. */
export const DEVICE_SIGN_IN_LIMIT = 10;
const DEVICE = 'throttle_login_attempts/device';

/** The name an attempt counts under: as the account lookup compares names (case-insensitively). */
export const signInName = (username: string): string => username.trim().toLowerCase();

export type ThrottleVerdict = { readonly allowed: true } | { readonly allowed: false; readonly limit: number; readonly resetAtMs: number };

/**
 * Sign-in attempts per account name, whoever makes them and from wherever: a budget that runs out and
 * comes back with the next window, never a lock. Unknown names count exactly as known ones, so the
 * answer never tells whether an account exists; the password is checked only within the budget.
 */
export class AccountSignInThrottle {
  private readonly counter: BatchedCounter;
  private readonly limit: number;
  private readonly periodSeconds: number;
  private readonly deviceLimit: number;
  /** The windows' clock (default Date.now): tests pin it, so that no count straddles an hour's end. */
  readonly now: () => number;

  constructor(
    store: RateLimitStore,
    options: { limit?: number; periodSeconds?: number; deviceLimit?: number; now?: (() => number) | undefined; countDeadlineMs?: number | undefined } = {},
  ) {
    this.counter = new BatchedCounter(store, options.countDeadlineMs);
    this.limit = options.limit ?? ACCOUNT_SIGN_IN_LIMIT;
    this.periodSeconds = options.periodSeconds ?? ACCOUNT_SIGN_IN_PERIOD_SECONDS;
    this.deviceLimit = options.deviceLimit ?? DEVICE_SIGN_IN_LIMIT;
    this.now = options.now ?? Date.now;
  }

  /** Counts one attempt; an empty name (Mastodon's `.presence`) counts nowhere and can sign nobody in. */
  async attempt(username: string, nowMs = this.now()): Promise<ThrottleVerdict> {
    const name = signInName(username);
    if (name === '') return { allowed: true };
    // As the by-address throttles (rate-limit-middleware.ts): a counter store that cannot answer in time
    // is a 503 (StoreUnavailableError), never a password check let through uncounted.
    return this.count(`${NAME}:${name}`, this.limit, nowMs);
  }

  /**
   * Counts one attempt carrying a valid device cookie for the name (device-cookie.ts) in that cookie's own
   * budget instead of the name's: a stranger who spends the name's budget does not shut its owner out.
   */
  attemptFromDevice(nonce: string, nowMs = this.now()): Promise<ThrottleVerdict> {
    return this.count(`${DEVICE}:${nonce}`, this.deviceLimit, nowMs);
  }

  private async count(key: string, limit: number, nowMs: number): Promise<ThrottleVerdict> {
    const window = windowOf(this.periodSeconds, nowMs);
    const count = await this.counter.increment(`${key}:${window.index}`, window.endsAtMs);
    return count > limit ? { allowed: false, limit, resetAtMs: window.endsAtMs } : { allowed: true };
  }
}

/** rack-attack's throttled answer, as the by-address throttles give it: Mastodon's JSON body and headers. */
export function answerThrottled(ctx: Context, verdict: Extract<ThrottleVerdict, { allowed: false }>, nowMs = Date.now()): void {
  ctx.status = 429;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  setRateLimitHeaders(ctx, verdict.limit, 0, verdict.resetAtMs);
  ctx.set('Retry-After', String(Math.max(1, Math.ceil((verdict.resetAtMs - nowMs) / 1000))));
  ctx.body = { error: 'Too many requests' };
}
