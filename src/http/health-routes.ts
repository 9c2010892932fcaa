import Router from '@koa/router';
import type { Context } from 'koa';
import type { HealthReport } from '../health/service-health.ts';
import { metricsEndpoint } from '../metrics/http-metrics.ts';

export interface HealthSource {
  report(): Promise<HealthReport>;
}

/**
 * GET /health: 200 `{"status":"ok",...}` when the service works, 503 `{"status":"unavailable",
 * "problems":[{"reason":...}],...}` saying what does not. GET /metrics answers whatever the stores do.
 */
export function healthRoutes(health: HealthSource): Router {
  const router = new Router();
  router.get('/health', async (ctx: Context) => {
    const report = await health.report();
    ctx.status = report.status === 'ok' ? 200 : 503;
    ctx.body = report;
  });
  router.get('/metrics', metricsEndpoint);
  return router;
}
