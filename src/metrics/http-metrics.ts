import type { Context, Next } from 'koa';
import type { Logger } from '../shared/logger.ts';
import { httpRequestDuration, httpRequests, registry } from './metrics.ts';
import { routeLabel } from './route-label.ts';

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
        const route = routeLabel(ctx);
        const labels = { method: ctx.method, route, status: String(ctx.status) };
        httpRequests.inc(labels);
        httpRequestDuration.observe(labels, seconds);
        // A 5 s probe and a scraper would otherwise fill the info log with a dozen lines a minute per process.
        const level = PROBES.has(ctx.path) ? 'debug' : 'info';
        logger[level]({ event: 'request', ...requestFields(ctx), route, ms: Math.round(seconds * 1000) }, 'request');
      } catch (error) {
        // A listener that threw would take the process down: metrics must never do that.
        logger.error({ err: error, requestId: ctx.state.requestId }, 'could not record request metrics');
      }
    });
    await next();
  };
}

/**
 * What an operator needs of one request: who (client address, honouring TRUST_PROXY, user agent, and once
 * authenticated the account and token id), what (method, path, never the query with its tokens) and how
 * it ended (the status as a number).
 */
function requestFields(ctx: Context): Record<string, unknown> {
  const grant = (ctx.state as { grant?: { account: { id: string }; tokenId: string | null } }).grant;
  return {
    requestId: ctx.state.requestId,
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    ip: ctx.ip,
    userAgent: ctx.get('user-agent').slice(0, 256),
    ...(grant ? { accountId: grant.account.id, tokenId: grant.tokenId } : {}),
  };
}

/** GET /metrics: Prometheus text format. */
export async function metricsEndpoint(ctx: Context): Promise<void> {
  ctx.set('Content-Type', registry.contentType);
  ctx.body = await registry.metrics();
}
