import type { Context } from 'koa';
import { BatchedCounter } from '../rate-limits/batched-counter.ts';
import type { RateLimitStore } from '../rate-limits/rate-limit-store.ts';
import { windowOf } from '../rate-limits/throttles.ts';

/** Mastodon's `throttle_login_attempts/email` (config/initializers/rack_attack.rb): 25 per hour. */
export const ACCOUNT_SIGN_IN_LIMIT = 25;
export const ACCOUNT_SIGN_IN_PERIOD_SECONDS = 60 * 60;
const NAME = 'throttle_login_attempts/account';

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

  constructor(
    store: RateLimitStore,
    private readonly limit = ACCOUNT_SIGN_IN_LIMIT,
    private readonly periodSeconds = ACCOUNT_SIGN_IN_PERIOD_SECONDS,
  ) {
    this.counter = new BatchedCounter(store);
  }

  /** Counts one attempt; an empty name (Mastodon's `.presence`) counts nowhere and can sign nobody in. */
  async attempt(username: string, nowMs = Date.now()): Promise<ThrottleVerdict> {
    const name = signInName(username);
    if (name === '') return { allowed: true };
    const window = windowOf(this.periodSeconds, nowMs);
    // As the by-address throttles (rate-limit-middleware.ts): a counter store that cannot answer in time
    // is a 503 (StoreUnavailableError), never a password check let through uncounted.
    const count = await this.counter.increment(`${NAME}:${name}:${window.index}`, window.endsAtMs);
    return count > this.limit ? { allowed: false, limit: this.limit, resetAtMs: window.endsAtMs } : { allowed: true };
  }
}

/** rack-attack's throttled answer, as the by-address throttles give it: Mastodon's JSON body and headers. */
export function answerThrottled(ctx: Context, verdict: Extract<ThrottleVerdict, { allowed: false }>): void {
  ctx.status = 429;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-RateLimit-Limit', String(verdict.limit));
  ctx.set('X-RateLimit-Remaining', '0');
  // Ruby's iso8601(6): microseconds.
  ctx.set('X-RateLimit-Reset', new Date(verdict.resetAtMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'));
  ctx.set('Retry-After', String(Math.max(1, Math.ceil((verdict.resetAtMs - Date.now()) / 1000))));
  ctx.body = { error: 'Too many requests' };
}
