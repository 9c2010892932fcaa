import type { Server } from 'node:http';
import type { AccountStore } from './accounts/account-store.ts';
import { SqliteAccountStore } from './accounts/sqlite-account-store.ts';
import type { Config } from './config.ts';
import type { EventStore } from './events/event-store.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { createWebmail } from './http/webmail/index.ts';
import { countedEventStore } from './metrics/counted-event-store.ts';
import { natsPublishFailures, watchProjection } from './metrics/metrics.ts';
import { InProcessNotifier } from './notifications/in-process-notifier.ts';
import { NatsNotifier } from './notifications/nats-notifier.ts';
import type { Notifier } from './notifications/notifier.ts';
import { CheckpointCatchUp } from './projections/checkpoint-catch-up.ts';
import { LeasedProjector } from './projections/leased-projector.ts';
import { projectionSource } from './projections/projection-source.ts';
import type { ManagedReadStore } from './projections/read-model-admin.ts';
import type { Logger } from './shared/logger.ts';
import { openEventStore, openReadStore } from './stores.ts';

export interface Stores {
  readonly dataDir: string;
  readonly accounts: AccountStore;
  readonly events: EventStore;
  readonly reads: ManagedReadStore;
  readonly notifier: Notifier;
}

/** The embedded default for every port not configured otherwise (see stores.ts). */
export async function openStores(config: Config): Promise<Stores> {
  return {
    dataDir: config.dataDir,
    accounts: SqliteAccountStore.inDataDir(config.dataDir),
    events: countedEventStore(await openEventStore(config)),
    reads: await openReadStore(config),
    notifier: config.natsUrl ? await NatsNotifier.connect(config.natsUrl) : new InProcessNotifier(),
  };
}

export interface RunningService {
  readonly server: Server;
  readonly url: string;
  readonly stores: Stores;
  /** Null when PROJECTOR=off: a separate `npm run projector` process keeps the read models. */
  readonly projector: LeasedProjector | null;
  /** Stops taking requests, lets in-flight ones finish, stops the projector and closes the stores. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly stores?: Stores;
  /** Where the webmail reads MAIL_DOMAIN, SMTP_URL, LOG_DIR and its other settings. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The HTTP API with, unless PROJECTOR=off, a projector that runs while this process holds the projector
 * lease (the embedded default: everything in one process). Without one, writes wait on the shared checkpoint.
 */
export async function startService({ config, logger, stores: given, env }: ServiceOptions): Promise<RunningService> {
  const stores = given ?? (await openStores(config));
  const webmail = createWebmail({ accounts: stores.accounts, dataDir: config.dataDir, env: env ?? process.env });
  const projector = config.projector
    ? new LeasedProjector(stores.events, stores.reads, stores.notifier, {
        leaseMs: config.projectorLeaseMs,
        logger,
        onAnnounceFailure: () => natsPublishFailures.inc(),
      })
    : null;
  await projector?.start();
  watchProjection(projectionSource(stores.events, stores.reads, projector));
  const catchUp = projector ?? new CheckpointCatchUp(stores.reads);
  const app = createApp({ ...stores, catchUp, logger, isReady: () => true, before: [webmail.middleware] });
  const { server, url, stop } = await listen(app, config.port, config.host);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await stop();
      await projector?.stop();
      await webmail.close();
      await stores.notifier.close();
      await Promise.all([stores.accounts.close(), stores.events.close(), stores.reads.close()]);
    })());
  return { server, url, stores, projector, close };
}
