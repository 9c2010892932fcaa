import type { Context, Next } from 'koa';
import type { Logger } from '../shared/logger.ts';
import { httpRequestDuration, httpRequests, registry } from './metrics.ts';

/**
 * Counts and times every request by its route pattern (never the raw path, which would make a series
 * per filter id), and writes one structured log line carrying the request id.
 */
export function httpMetrics(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
      const labels = { method: ctx.method, route, status: String(ctx.status) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, seconds);
      logger.info({ requestId: ctx.state.requestId, ...labels, path: ctx.path, ms: Math.round(seconds * 1000) }, 'request');
    }
  };
}

/** GET /metrics: Prometheus text format. */
export async function metricsEndpoint(ctx: Context): Promise<void> {
  ctx.set('Content-Type', registry.contentType);
  ctx.body = await registry.metrics();
}
