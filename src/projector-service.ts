import Koa from 'koa';
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
import { openEventStore, openNotifier, openReadStore } from './stores.ts';
import { MastodonFilterTables } from './projections/mastodon/mastodon-filter-tables.ts';

/** Mastodon's database, checked as the API checks it (one fatal line when it cannot be used). */
async function openMastodonPool(url: string) {
  const { openMastodonDatabase } = await import('./mastodon/mastodon-database.ts');
  return openMastodonDatabase(url);
}

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
export async function startProjectorService(config: Config, logger: Logger): Promise<RunningProjector> {
  const events = await openEventStore(config);
  const reads = await openReadStore(config);
  const notifier = await openNotifier(config, logger, 'content-filters-projector');
  // REDIS_URL carries announcements too (Mastodon's channel): only with neither does nobody hear them.
  if (!config.natsUrl && !config.redisUrl)
    logger.warn({ event: 'no_announcements' }, 'neither NATS_URL nor REDIS_URL is set: filters_changed is announced to nobody');
  else if (!config.natsUrl) logger.info({ event: 'announcements' }, "NATS_URL is not set: filters_changed goes only to Mastodon's Redis channel (REDIS_URL)");
  // Mastodon mode: Mastodon's filter tables are a read model this process keeps too, while it holds the lease.
  const mastodonPool = config.mastodonDatabaseUrl ? await openMastodonPool(config.mastodonDatabaseUrl) : null;
  const closeStores = async () => {
    await notifier.close();
    await Promise.all([events.close(), reads.close(), mastodonPool?.end()]);
  };
  let mastodonTables: MastodonFilterTables | null;
  try {
    mastodonTables = mastodonPool ? await MastodonFilterTables.open(mastodonPool) : null;
  } catch (error) {
    await closeStores();
    throw error;
  }
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
  let listening;
  try {
    listening = await listen(app, config.port, config.host);
  } catch (error) {
    await closeStores();
    throw error;
  }
  const { url, address, stop } = listening;
  await projector.start();
  const unwatchProjection = watchProjection(health);
  const unwatchAnnouncements = watchAnnouncements(health);
  const unwatchNats = watchNats(notifier);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      unwatchProjection();
      unwatchAnnouncements();
      unwatchNats();
      await stop();
      await projector.stop();
      await closeStores();
    })());
  return { url, address, projector, close };
}
