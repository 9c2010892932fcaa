import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccountStore } from './accounts/account-store.ts';
import { SqliteAccountStore } from './accounts/sqlite-account-store.ts';
import type { Config } from './config.ts';
import type { EventStore } from './events/event-store.ts';
import { SqliteEventStore } from './events/sqlite-event-store.ts';
import { createApp } from './http/app.ts';
import { createWebmail } from './http/webmail/index.ts';
import { InProcessNotifier } from './notifications/in-process-notifier.ts';
import { NatsNotifier } from './notifications/nats-notifier.ts';
import type { Notifier } from './notifications/notifier.ts';
import { FilterProjector } from './projections/filter-projector.ts';
import type { ReadStore } from './projections/read-store.ts';
import { SqliteReadStore } from './projections/sqlite-read-store.ts';
import type { Logger } from './shared/logger.ts';

export interface Stores {
  readonly dataDir: string;
  readonly accounts: AccountStore;
  readonly events: EventStore;
  readonly reads: ReadStore;
  readonly notifier: Notifier;
}

/** The embedded default for every port not configured otherwise. */
export async function openStores(config: Config): Promise<Stores> {
  return {
    dataDir: config.dataDir,
    accounts: SqliteAccountStore.inDataDir(config.dataDir),
    events: SqliteEventStore.inDataDir(config.dataDir),
    reads: SqliteReadStore.inDataDir(config.dataDir),
    notifier: config.natsUrl ? await NatsNotifier.connect(config.natsUrl) : new InProcessNotifier(),
  };
}

export interface RunningService {
  readonly server: Server;
  readonly url: string;
  readonly stores: Stores;
  readonly projector: FilterProjector;
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

/** Everything in one process: HTTP API, projector and stores (the embedded default topology). */
export async function startService({ config, logger, stores: given, env }: ServiceOptions): Promise<RunningService> {
  const stores = given ?? (await openStores(config));
  const webmail = createWebmail({ accounts: stores.accounts, dataDir: config.dataDir, env: env ?? process.env });
  const projector = new FilterProjector(stores.events, stores.reads, stores.notifier, logger);
  await projector.start();
  const app = createApp({ ...stores, catchUp: projector, logger, isReady: () => true, before: [webmail.middleware] });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await projector.stop();
      await webmail.close();
      await stores.notifier.close();
      await Promise.all([stores.accounts.close(), stores.events.close(), stores.reads.close()]);
    })());
  // Idle keep-alive sockets would hold server.close() open forever.
  server.on('close', () => server.closeAllConnections?.());
  return { server, url: `http://${host}:${port}`, stores, projector, close };
}
