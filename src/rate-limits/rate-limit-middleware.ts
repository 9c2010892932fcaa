import type { Context, Middleware, Next } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import { presentedToken, type AppTokenLookup } from '../http/authentication.ts';
import { BatchedCounter } from './batched-counter.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { windowOf, type RequestFacts, type Throttle } from './throttles.ts';

interface Counted {
  readonly throttle: Throttle;
  readonly count: number;
  readonly resetAtMs: number;
}

/** rack-attack's reset time: the end of the window, as Ruby's iso8601(6) writes it. */
const resetHeader = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

function setHeaders(ctx: Context, counted: Counted, remaining: number): void {
  ctx.set('X-RateLimit-Limit', String(counted.throttle.limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, remaining)));
  ctx.set('X-RateLimit-Reset', resetHeader(counted.resetAtMs));
}

const counts = (path: string) => path.startsWith('/api/') || path === '/api' || path.startsWith('/oauth/');

/**
 * Mastodon's rack-attack: each request counts once in every throttle that applies to it, in the shared
 * store; past a limit it is answered 429 before any route runs. API answers carry the X-RateLimit-*
 * headers of the API throttle the request counted in.
 */
export function rateLimits(deps: { store: RateLimitStore; throttles: readonly Throttle[]; accounts: AccountStore; appTokens?: AppTokenLookup }): Middleware {
  const identify = async (ctx: Context): Promise<Pick<RequestFacts, 'accountId' | 'appTokenId'>> => {
    // Only the header and the query here: reading a body would cost every request, refused ones too.
    const token = presentedToken(ctx);
    if (token === null) return { accountId: null, appTokenId: null };
    const grant = await deps.accounts.authenticate(token);
    if (grant) return { accountId: grant.account.id, appTokenId: null };
    const app = deps.appTokens ? await deps.appTokens(token) : null;
    return { accountId: null, appTokenId: app ? app.tokenId : null };
  };
  const counter = new BatchedCounter(deps.store);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!counts(ctx.path) || ctx.method === 'OPTIONS') {
      await next();
      return;
    }
    const facts: RequestFacts = { method: ctx.method, path: ctx.path, ip: ctx.ip, ...(await identify(ctx)) };
    const now = Date.now();
    const counted: Counted[] = [];
    for (const throttle of deps.throttles) {
      const key = throttle.discriminator(facts);
      if (key === null) continue;
      const window = windowOf(throttle.periodSeconds, now);
      // A counter store that cannot answer within BatchedCounter's deadline is a 503 (StoreUnavailableError),
      // as the docs say: never a request let through uncounted, never a wait on a frozen store.
      const count = await counter.increment(`${throttle.name}:${key}:${window.index}`, window.endsAtMs);
      counted.push({ throttle, count, resetAtMs: window.endsAtMs });
    }
    const over = counted.find((c) => c.count > c.throttle.limit);
    if (over) {
      setHeaders(ctx, over, 0);
      ctx.set('Retry-After', String(Math.max(1, Math.ceil((over.resetAtMs - now) / 1000))));
      ctx.status = 429;
      ctx.type = 'application/json';
      ctx.body = { error: 'Too many requests' };
      return;
    }
    const reported = counted.find((c) => c.throttle.reportsHeaders);
    if (reported) setHeaders(ctx, reported, reported.throttle.limit - reported.count);
    await next();
  };
}
