import type { Context, Next } from 'koa';
import type { Logger } from '../shared/logger.ts';
import { httpRequestDuration, httpRequests, registry } from './metrics.ts';

const PROBES = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * Counts and times every request by its route pattern (never the raw path, which would make a series
 * per filter id), and writes one structured log line carrying the request id. It records once the
 * response has gone, with the status the client got: the error handler, outside it, sets that last.
 */
export function httpMetrics(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    ctx.res.once('close', () => {
      try {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
        const labels = { method: ctx.method, route, status: String(ctx.status) };
        httpRequests.inc(labels);
        httpRequestDuration.observe(labels, seconds);
        // A 5 s probe and a scraper would otherwise fill the info log with a dozen lines a minute per process.
        const level = PROBES.has(ctx.path) ? 'debug' : 'info';
        logger[level]({ requestId: ctx.state.requestId, ...labels, path: ctx.path, ms: Math.round(seconds * 1000) }, 'request');
      } catch (error) {
        // A listener that threw would take the process down: metrics must never do that.
        logger.error({ err: error, requestId: ctx.state.requestId }, 'could not record request metrics');
      }
    });
    await next();
  };
}

/** GET /metrics: Prometheus text format. */
export async function metricsEndpoint(ctx: Context): Promise<void> {
  ctx.set('Content-Type', registry.contentType);
  ctx.body = await registry.metrics();
}
