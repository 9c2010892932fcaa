import type { Context, Middleware, Next } from 'koa';

/** `*` (any origin, Mastodon's choice) or the exact origins allowed, e.g. `https://elk.zone`. */
export type CorsOrigins = '*' | readonly string[];

// Mastodon's config/initializers/cors.rb for `/api/*`, as rack-cors sends it: these methods, any
// request header, these exposed headers, rack-cors's default max age, and never credentials.
const METHODS = ['post', 'put', 'delete', 'get', 'patch', 'options'];
const ALLOW_METHODS = METHODS.map((method) => method.toUpperCase()).join(', ');
const EXPOSE = 'Link, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id';
const MAX_AGE = '7200';

// Mastodon's cors.rb also opens the token endpoints and the server metadata to browser apps.
const OAUTH_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server']);
const isApi = (path: string) => path === '/api' || path.startsWith('/api/') || OAUTH_PATHS.has(path);

function corsHeaders(ctx: Context, origins: CorsOrigins, origin: string): void {
  ctx.set('Access-Control-Allow-Origin', origins === '*' ? '*' : origin);
  ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
  ctx.set('Access-Control-Expose-Headers', EXPOSE);
  ctx.set('Access-Control-Max-Age', MAX_AGE);
}

/**
 * Cross-origin access to `/api/*` exactly as Mastodon allows it (rack-cors): a preflight (OPTIONS with
 * Origin and Access-Control-Request-Method) is answered here with 200 and an empty body, with the CORS
 * headers only when the origin and method are allowed; other requests with an allowed Origin get the
 * headers on whatever the API answers. Every `/api/*` answer varies by Origin. Nothing else is touched:
 * the webmail's pages and cookies stay same-origin.
 */
export function apiCors(origins: CorsOrigins): Middleware {
  const allows = (origin: string) => origins === '*' || origins.includes(origin);
  return async (ctx: Context, next: Next) => {
    if (!isApi(ctx.path)) {
      await next();
      return;
    }
    const origin = ctx.get('Origin');
    const requestedMethod = ctx.get('Access-Control-Request-Method');
    if (origin !== '' && ctx.method === 'OPTIONS' && requestedMethod !== '') {
      ctx.status = 200;
      ctx.body = '';
      ctx.remove('Content-Type');
      if (allows(origin) && METHODS.includes(requestedMethod.toLowerCase())) {
        corsHeaders(ctx, origins, origin);
        const requestedHeaders = ctx.get('Access-Control-Request-Headers');
        if (requestedHeaders !== '') ctx.set('Access-Control-Allow-Headers', requestedHeaders);
      }
      return;
    }
    if (origin !== '' && allows(origin)) corsHeaders(ctx, origins, origin);
    try {
      await next();
    } finally {
      ctx.vary('Origin');
    }
  };
}
