import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Config } from './config.ts';
import { listen } from './http/listen.ts';
import { httpMetrics, metricsEndpoint } from './metrics/http-metrics.ts';
import { natsPublishFailures, watchProjection } from './metrics/metrics.ts';
import { InProcessNotifier } from './notifications/in-process-notifier.ts';
import { NatsNotifier } from './notifications/nats-notifier.ts';
import { LeasedProjector } from './projections/leased-projector.ts';
import { projectionSource } from './projections/projection-source.ts';
import type { Logger } from './shared/logger.ts';
import { openEventStore, openReadStore } from './stores.ts';

export interface RunningProjector {
  readonly url: string;
  readonly projector: LeasedProjector;
  /** Stops serving, finishes the current projection step, gives up the lease and closes the stores. */
  close(): Promise<void>;
}

/**
 * `npm run projector`: the projector as its own process. Any number may run; the lease lets one project
 * and keeps the others waiting to take over. It serves only GET /health and GET /metrics.
 */
export async function startProjectorService(config: Config, logger: Logger): Promise<RunningProjector> {
  const events = await openEventStore(config);
  const reads = await openReadStore(config);
  const notifier = config.natsUrl ? await NatsNotifier.connect(config.natsUrl, 'content-filters-projector') : new InProcessNotifier();
  if (!config.natsUrl) logger.warn('NATS_URL is not set: filters_changed stays inside this process, where nobody listens');
  const projector = new LeasedProjector(events, reads, notifier, {
    leaseMs: config.projectorLeaseMs,
    logger,
    onAnnounceFailure: () => natsPublishFailures.inc(),
  });
  await projector.start();
  watchProjection(projectionSource(events, reads, projector));

  const app = new Koa();
  const router = new Router();
  router.get('/health', (ctx: Context) => {
    ctx.body = { status: 'ok', leader: projector.isLeader, owner: projector.owner };
  });
  router.get('/metrics', metricsEndpoint);
  app.use(httpMetrics(logger.child({ component: 'projector-http' })));
  app.use(router.routes());
  const { url, stop } = await listen(app, config.port, config.host);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await stop();
      await projector.stop();
      watchProjection(null);
      await notifier.close();
      await Promise.all([events.close(), reads.close()]);
    })());
  return { url, projector, close };
}
