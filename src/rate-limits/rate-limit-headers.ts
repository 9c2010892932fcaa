import type { Context } from 'koa';

/**
 * Mastodon's X-RateLimit-* headers (Api::RateLimitHeaders and rack-attack's throttled_responder): the
 * reset time is the window's end as Ruby's iso8601(6) writes it, with microseconds.
 */
export function setRateLimitHeaders(ctx: Context, limit: number, remaining: number, resetAtMs: number): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, remaining)));
  ctx.set('X-RateLimit-Reset', resetText(resetAtMs));
}

// Every request of a window shares its end: it is written once per window, not once per request.
let lastReset = { atMs: Number.NaN, text: '' };

function resetText(resetAtMs: number): string {
  if (lastReset.atMs !== resetAtMs) lastReset = { atMs: resetAtMs, text: new Date(resetAtMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z') };
  return lastReset.text;
}
