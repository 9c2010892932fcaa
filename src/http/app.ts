import Router from '@koa/router';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import type { OAuthStore } from '../oauth/oauth-store.ts';
import type { AccountLog } from '../accounts/account-log.ts';
import { appsRoutes } from '../oauth/routes/apps-routes.ts';
import { oauthAuthorizeRoutes } from '../oauth/routes/oauth-authorize-routes.ts';
import { AccountSignInThrottle } from '../oauth/sign-in-throttle.ts';
import { oauthTokenRoutes } from '../oauth/routes/oauth-token-routes.ts';
import { rateLimits } from '../rate-limits/rate-limit-middleware.ts';
import type { RateLimitStore } from '../rate-limits/rate-limit-store.ts';
import { throttles, type RateLimitSettings } from '../rate-limits/throttles.ts';
import type { AccountMatchers } from '../matching/account-matchers.ts';
import { httpMetrics } from '../metrics/http-metrics.ts';
import { authenticate, requireFilterScope, type AppTokenLookup } from './authentication.ts';
import { mastodonOwnedRoutes } from '../mastodon/mastodon-owned-routes.ts';
import { apiCors, type CorsOrigins } from './cors.ts';
import { healthRoutes, type HealthSource } from './health-routes.ts';
import { jsonErrors, koaErrorLogger } from './http-errors.ts';
import { requestId } from './request-id.ts';
import { requestParams } from './request-params.ts';
import { routeChooser } from './route-of.ts';
import type { FilterRouteDeps } from './route-context.ts';
import { v1FilterRoutes } from './routes/v1-filter-routes.ts';
import { v2FilterMatchRoute } from './routes/v2-filter-match-route.ts';
import { v2FilterRoutes } from './routes/v2-filter-routes.ts';
import { v2KeywordRoutes } from './routes/v2-keyword-routes.ts';
import { v2StatusRoutes } from './routes/v2-status-routes.ts';
import { welcomePage } from './welcome-page.ts';

export interface AppDeps extends FilterRouteDeps {
  readonly accounts: AccountStore;
  /** What GET /health reports. */
  readonly health: HealthSource;
  /** Compiled filters per account, for POST /api/v2/filters/match. */
  readonly matchers: AccountMatchers;
  /** Mounted before the JSON API's routes and body parsing (the webmail renders its own pages and errors). */
  readonly before?: readonly Middleware[];
  /** Who may call /api/* from a browser page on another origin (default `*`, as Mastodon). */
  readonly corsOrigins?: CorsOrigins;
  /** How many reverse proxies in front to believe about the client's address and scheme (default 0: none). */
  readonly trustProxy?: number;
  /** Apps and sign-in (OAuth 2, as Mastodon); without it only CLI-made tokens work. */
  readonly oauth?: OAuthStore;
  /**
   * Mastodon mode: accounts, apps and tokens are Mastodon's. `oauth` is then ignored, its endpoints
   * refuse, and app tokens are looked up here (Mastodon's `oauth_access_tokens` with no user).
   */
  readonly mastodon?: { readonly appTokens: AppTokenLookup };
  /** How long a failed OAuth sign-in waits before its answer (tests make it instant). */
  readonly failedSignInPause?: (ms: number) => Promise<void>;
  /** Where sign-ins, app authorizations and app tokens are recorded in the accounts' streams; none: not recorded. */
  readonly accountLog?: AccountLog;
  /** Mastodon's rack-attack throttles, counted in a store every process shares; none when absent (RATE_LIMITS=off). */
  readonly rateLimits?: { readonly store: RateLimitStore; readonly settings: RateLimitSettings };
}

async function apiHeaders(ctx: Context, next: Next): Promise<void> {
  // Answers depend on the token, and filters are private: never cache them anywhere.
  ctx.set('Vary', 'Authorization');
  ctx.set('Cache-Control', 'no-store');
  await next();
}

function filtersRouter(deps: AppDeps): Router {
  const router = new Router();
  const appTokens = appTokenLookup(deps);
  // Router-level middleware runs only for paths a route matches, so unknown paths stay plain 404s.
  // Parameters before the token: Doorkeeper also takes `access_token` from a form body.
  router.use(apiHeaders, requestParams(), authenticate(deps.accounts, appTokens), requireFilterScope());
  // Flat keyword/status paths first, so `keywords` and `statuses` are never read as a filter id.
  v2KeywordRoutes(router, deps);
  v2StatusRoutes(router, deps);
  v2FilterRoutes(router, deps);
  v1FilterRoutes(router, deps);
  return router;
}

/** Where tokens of apps with no account are found: Mastodon's table in Mastodon mode, else the OAuth store. */
function appTokenLookup(deps: AppDeps): AppTokenLookup | undefined {
  if (deps.mastodon) return deps.mastodon.appTokens;
  return deps.oauth ? (token: string) => deps.oauth!.authenticateAppToken(token) : undefined;
}

/** Every router of the application, in the order they are mounted (the first that routes a request runs it). */
function appRouters(deps: AppDeps): Router[] {
  const routers = [healthRoutes(deps.health)];
  if (deps.mastodon) routers.push(mastodonOwnedRoutes());
  else if (deps.oauth) {
    const oauth = { oauth: deps.oauth, accounts: deps.accounts, ...(deps.accountLog ? { accountLog: deps.accountLog } : {}) };
    const optional = {
      ...(deps.failedSignInPause ? { failedSignInPause: deps.failedSignInPause } : {}),
      ...(deps.rateLimits
        ? {
            signInThrottle: new AccountSignInThrottle(deps.rateLimits.store, {
              now: deps.rateLimits.settings.now,
              countDeadlineMs: deps.rateLimits.settings.countDeadlineMs,
            }),
          }
        : {}),
    };
    routers.push(appsRoutes(deps.oauth, deps.accounts), oauthTokenRoutes(oauth), oauthAuthorizeRoutes({ ...oauth, ...optional }));
  }
  // The match route is its own router (its own body limit and scope), mounted before the filters router.
  // No allowedMethods(): as Mastodon's catch-all `*unmatched_route`, a method without a route on a
  // known path is a JSON 404 `Not Found` (jsonErrors), not a 405.
  routers.push(v2FilterMatchRoute(deps, apiHeaders), filtersRouter(deps));
  return routers;
}

/** The HTTP application; it never listens by itself, so tests and main decide where it runs. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  // Behind TLS-terminating proxies: ctx.ip (logs, fail2ban) and ctx.secure (Secure cookies) come from
  // X-Forwarded-For/-Proto, taking only the addresses the trusted proxies appended.
  app.proxy = (deps.trustProxy ?? 0) > 0;
  if (app.proxy) app.maxIpsCount = deps.trustProxy!;
  // Errors Koa itself sees (a failed response stream, the webmail's reports) go to the JSON log, not stderr.
  app.on('error', koaErrorLogger(deps.logger));
  // Outermost, so a failure in any layer (request id, metrics, CORS, webmail, routes) is still a JSON answer.
  app.use(jsonErrors(deps.logger));
  app.use(requestId);
  app.use(httpMetrics(deps.logger));
  app.use(apiCors(deps.corsOrigins ?? '*'));
  const routers = appRouters(deps);
  if (deps.rateLimits) {
    const appTokens = appTokenLookup(deps);
    app.use(
      rateLimits({
        store: deps.rateLimits.store,
        throttles: throttles(deps.rateLimits.settings),
        accounts: deps.accounts,
        // The throttles judge the route these routers will run, never the spelling of the path.
        routeOf: routeChooser(routers),
        ...(appTokens ? { appTokens } : {}),
        ...(deps.rateLimits.settings.now ? { now: deps.rateLimits.settings.now } : {}),
        ...(deps.rateLimits.settings.countDeadlineMs ? { countDeadlineMs: deps.rateLimits.settings.countDeadlineMs } : {}),
      }),
    );
  }
  for (const middleware of deps.before ?? []) app.use(middleware);
  app.use(welcomePage);
  for (const router of routers) app.use(router.routes());
  return app;
}
