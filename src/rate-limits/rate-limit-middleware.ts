import type { Context, Middleware, Next } from 'koa';
import { BatchedCounter } from './batched-counter.ts';
import { setRateLimitHeaders } from './rate-limit-headers.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { chosenRoute, requestFacts, type FactSources } from './request-facts.ts';
import { windowOf, type Throttle } from './throttles.ts';

interface Counted {
  readonly throttle: Throttle;
  readonly count: number;
  readonly resetAtMs: number;
}

function setHeaders(ctx: Context, counted: Counted, remaining: number): void {
  setRateLimitHeaders(ctx, counted.throttle.limit, remaining, counted.resetAtMs);
}

/** Mastodon's Api::RateLimitHeaders: the throttle with the fewest requests left; the first of equals. */
function mostLimited(counted: readonly Counted[]): Counted | undefined {
  let least: Counted | undefined;
  for (const c of counted) if (!least || c.throttle.limit - c.count < least.throttle.limit - least.count) least = c;
  return least;
}

/**
 * Mastodon's rack-attack, judged on the route the router will run (never on how the path is spelt):
 * each request counts in the throttles that apply to it, in their order, in the shared store; the first
 * one past its limit answers 429 before any route runs, as Mastodon's throttled_responder (no
 * Retry-After: X-RateLimit-Reset says when). API answers carry the X-RateLimit-* headers of the most
 * limited throttle the request counted in.
 */
export function rateLimits(
  deps: FactSources & { store: RateLimitStore; throttles: readonly Throttle[]; now?: () => number; countDeadlineMs?: number },
): Middleware {
  const counter = new BatchedCounter(deps.store, deps.countDeadlineMs);
  // The windows' clock: tests pin it, so that no count straddles a window's end.
  const clock = deps.now ?? Date.now;
  return async (ctx: Context, next: Next): Promise<void> => {
    const route = ctx.method === 'OPTIONS' ? null : chosenRoute(ctx, deps);
    // Only the Mastodon-shaped surface counts: API requests and the routes of this app's routers (the
    // webmail keeps Roundcube's own limits). CORS preflights are answered before, as by rack-cors.
    if (route === null || (!route.api && route.template === null)) {
      await next();
      return;
    }
    const facts = await requestFacts(ctx, route, deps);
    const now = clock();
    const counted: Counted[] = [];
    for (const throttle of deps.throttles) {
      const key = throttle.discriminator(facts);
      if (key === null) continue;
      const window = windowOf(throttle.periodSeconds, now);
      // A counter store that cannot answer within BatchedCounter's deadline is a 503 (StoreUnavailableError),
      // as the docs say: never a request let through uncounted, never a wait on a frozen store.
      const count = await counter.increment(`${throttle.name}:${key}:${window.index}`, window.endsAtMs);
      const entry = { throttle, count, resetAtMs: window.endsAtMs };
      if (count > throttle.limit) {
        setHeaders(ctx, entry, 0);
        ctx.status = 429;
        ctx.body = { error: 'Too many requests' };
        // Exactly Mastodon's header, without the charset Koa would add.
        ctx.set('Content-Type', 'application/json');
        return;
      }
      counted.push(entry);
    }
    const reported = route.api ? mostLimited(counted) : undefined;
    if (reported) setHeaders(ctx, reported, reported.throttle.limit - reported.count);
    await next();
  };
}
