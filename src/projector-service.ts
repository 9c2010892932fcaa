import Koa from 'koa';
import { openAdapters, PROJECTOR_ADAPTERS, type AdapterTable, type ProjectorAdapters } from './composition-root.ts';
import type { Config } from './config.ts';
import { ServiceHealth } from './health/service-health.ts';
import { healthRoutes } from './http/health-routes.ts';
import { listen } from './http/listen.ts';
import { httpMetrics } from './metrics/http-metrics.ts';
import { announcerMetrics, watchAnnouncements } from './metrics/announcer-metrics.ts';
import { watchNats } from './metrics/metrics.ts';
import { projectionMetrics, projectorFencedWrites, watchProjection } from './metrics/projection-metrics.ts';
import { LeasedProjector } from './projections/runtime/leased-projector.ts';
import { StaleWrites } from './projections/runtime/stale-writes.ts';
import type { Logger } from './shared/logger.ts';
import { OpenedResources } from './shared/opened-resources.ts';
import { MastodonFilterTables } from './projections/mastodon/mastodon-filter-tables.ts';

export interface RunningProjector {
  readonly url: string;
  /** The socket's bound address (listen.ts). */
  readonly address: string;
  readonly projector: LeasedProjector;
  /** Stops serving, finishes the current projection step, gives up the lease and closes the stores (a function). */
  readonly close: () => Promise<void>;
}

/**
 * `npm run projector`: the projector as its own process. Any number may run; the lease lets one project
 * and keeps the others waiting to take over. It serves only GET /health (the same report as the API's,
 * with `leader` and `owner`) and GET /metrics. The lease is asked for only once the port is served.
 */
export async function startProjectorService(config: Config, logger: Logger, adapters = PROJECTOR_ADAPTERS): Promise<RunningProjector> {
  const scope = new OpenedResources();
  return scope.orCloseAll(() => serve(config, logger, adapters, scope));
}

async function serve(config: Config, logger: Logger, adapters: AdapterTable<ProjectorAdapters>, scope: OpenedResources): Promise<RunningProjector> {
  const { events, reads, notifier, mastodonPool } = await openAdapters(adapters, { config, logger, env: process.env }, scope);
  // Mastodon mode: Mastodon's filter tables are a read model this process keeps too, while it holds the lease.
  const mastodonTables = mastodonPool ? await MastodonFilterTables.open(mastodonPool) : null;
  const projector = new LeasedProjector(events, reads, notifier, {
    ...(mastodonTables ? { mastodonTables } : {}),
    leaseMs: config.projectorLeaseMs,
    logger,
    observer: projectionMetrics,
    announcerObserver: announcerMetrics,
    onFencedOff: () => projectorFencedWrites.inc(),
  });
  const health = new ServiceHealth({
    events,
    reads,
    notifier,
    projector,
    staleWrites: new StaleWrites(),
    maxLagMs: config.projectorMaxLagMs,
    ...(mastodonTables ? { mastodonTables } : {}),
  });
  const app = new Koa();
  app.use(httpMetrics(logger.child({ component: 'projector-http' })));
  app.use(healthRoutes(health).routes());
  const { url, address, stop } = await listen(app, config.port, config.host);
  // A shutdown stops serving first, then the projector (the API's order, service.ts).
  scope.defer('projector', () => projector.stop());
  scope.defer('http server', stop);
  await projector.start();
  scope.defer('projection metrics', watchProjection(health));
  scope.defer('announcer metrics', watchAnnouncements(health));
  scope.defer('NATS metrics', watchNats(notifier));
  return { url, address, projector, close: () => scope.closeAllOrFail() };
}
