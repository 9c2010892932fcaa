import Router from '@koa/router';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import { httpMetrics, metricsEndpoint } from '../metrics/http-metrics.ts';
import { authenticate, requireFilterScope } from './authentication.ts';
import { jsonErrors } from './http-errors.ts';
import { requestId } from './request-id.ts';
import { requestParams } from './request-params.ts';
import type { FilterRouteDeps } from './route-context.ts';
import { v1FilterRoutes } from './routes/v1-filter-routes.ts';
import { v2FilterRoutes } from './routes/v2-filter-routes.ts';
import { v2KeywordRoutes } from './routes/v2-keyword-routes.ts';
import { v2StatusRoutes } from './routes/v2-status-routes.ts';

export interface AppDeps extends FilterRouteDeps {
  readonly accounts: AccountStore;
  /** False until the read models are being maintained; /health answers 503 meanwhile. */
  readonly isReady: () => boolean;
  /** Mounted before the JSON API's error handling and body parsing (the webmail renders its own pages). */
  readonly before?: readonly Middleware[];
}

async function apiHeaders(ctx: Context, next: Next): Promise<void> {
  // Answers depend on the token, and filters are private: never cache them anywhere.
  ctx.set('Vary', 'Authorization');
  ctx.set('Cache-Control', 'no-store');
  await next();
}

function filtersRouter(deps: AppDeps): Router {
  const router = new Router();
  // Router-level middleware runs only for paths a route matches, so unknown paths stay plain 404s.
  router.use(apiHeaders, authenticate(deps.accounts), requireFilterScope(), requestParams());
  // Flat keyword/status paths first, so `keywords` and `statuses` are never read as a filter id.
  v2KeywordRoutes(router, deps);
  v2StatusRoutes(router, deps);
  v2FilterRoutes(router, deps);
  v1FilterRoutes(router, deps);
  return router;
}

/** The HTTP application; it never listens by itself, so tests and main decide where it runs. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.use(requestId);
  app.use(httpMetrics(deps.logger));
  for (const middleware of deps.before ?? []) app.use(middleware);
  app.use(jsonErrors(deps.logger));
  const health = new Router();
  health.get('/health', (ctx: Context) => {
    ctx.status = deps.isReady() ? 200 : 503;
    ctx.body = { status: deps.isReady() ? 'ok' : 'starting' };
  });
  health.get('/metrics', metricsEndpoint);
  const filters = filtersRouter(deps);
  app.use(health.routes());
  app.use(filters.routes());
  app.use(filters.allowedMethods({ throw: true }));
  return app;
}
