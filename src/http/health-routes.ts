import Router from '@koa/router';
import type { Context } from 'koa';
import type { HealthReport } from '../health/service-health.ts';
import { metricsEndpoint } from '../metrics/http-metrics.ts';

export interface HealthSource {
  report(): Promise<HealthReport>;
}

/**
 * GET /health: 200 `{"status":"ok",...}` when the service works (`degraded`, still 200, while a transport
 * for announcements is away: they wait in the log), 503 `{"status":"unavailable",
 * "problems":[{"reason":...}],...}` saying what does not. GET /metrics answers whatever the stores do.
 */
export function healthRoutes(health: HealthSource): Router {
  const router = new Router();
  router.get('/health', async (ctx: Context) => {
    const report = await health.report();
    ctx.status = report.status === 'unavailable' ? 503 : 200;
    ctx.body = report;
  });
  router.get('/metrics', metricsEndpoint);
  return router;
}
