import Router from '@koa/router';
import type { Context } from 'koa';
import { readiness } from '../health/readiness.ts';
import type { HealthReport } from '../health/service-health.ts';
import { metricsEndpoint } from '../metrics/http-metrics.ts';
import { redact } from '../shared/redact.ts';

export interface HealthSource {
  report(): Promise<HealthReport>;
}

/** A report's errors quote drivers, which may quote a URL with its password: it leaves redacted. */
function answer(ctx: Context, ok: boolean, body: unknown): void {
  ctx.status = ok ? 200 : 503;
  ctx.type = 'application/json';
  ctx.body = redact(JSON.stringify(body));
}

/**
 * GET /health: 200 `{"status":"ok",...}` when the service works (`degraded`, still 200, while a transport
 * for announcements is away: they wait in the log), 503 `{"status":"unavailable",
 * "problems":[{"reason":...}],...}` saying what does not. GET /health/live: the process answers (a
 * liveness probe; it asks no store, so only a process that cannot answer HTTP is restarted). GET
 * /health/ready: the stores it serves from answer (a readiness probe; `degraded` is ready). GET /metrics
 * answers whatever the stores do.
 */
export function healthRoutes(health: HealthSource): Router {
  const router = new Router();
  router.get('/health', async (ctx: Context) => {
    const report = await health.report();
    answer(ctx, report.status !== 'unavailable', report);
  });
  router.get('/health/live', (ctx: Context) => answer(ctx, true, { status: 'live' }));
  router.get('/health/ready', async (ctx: Context) => {
    const ready = readiness(await health.report());
    answer(ctx, ready.status === 'ready', ready);
  });
  router.get('/metrics', metricsEndpoint);
  return router;
}
