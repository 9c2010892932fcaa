import type { Server } from 'node:http';
import { AccountLog } from './accounts/account-log.ts';
import { API_ADAPTERS, entriesOf, openAdapters, SERVICE_NAMES, STORE_NAMES, type AdapterTable, type ApiAdapters, type Stores } from './composition-root.ts';
import { filterStateWeight, type FilterState } from './commands/filter/filter-state.ts';
import { StreamStateCache } from './commands/stream-state-cache.ts';
import { natsSettings, type Config } from './config.ts';
import { logChainHeads } from './events/chain-head-log.ts';
import { ServiceHealth } from './health/service-health.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { AccountMatchers } from './matching/account-matchers.ts';
import { announcerMetrics, watchAnnouncements } from './metrics/announcer-metrics.ts';
import { watchNats } from './metrics/metrics.ts';
import { projectionMetrics, projectorFencedWrites, readYourWritesTimeouts, watchProjection } from './metrics/projection-metrics.ts';
import { NatsMatchResponder } from './notifications/nats-match-responder.ts';
import { LeasedProjector } from './projections/runtime/leased-projector.ts';
import { recordingStaleWrites, StaleWrites } from './projections/runtime/stale-writes.ts';
import { ReadYourWrites } from './projections/runtime/read-your-writes.ts';
import type { Logger } from './shared/logger.ts';
import { OpenedResources } from './shared/opened-resources.ts';
import { leaseWorkerNumber } from './shared/worker-numbers.ts';
import { createWebmail } from './webmail/index.ts';
import type { OAuthStore } from './oauth/oauth-store.ts';
import { mastodonAccounts } from './mastodon/mastodon-account-store.ts';
import { mastodonWebmailRefusal } from './mastodon/mastodon-webmail-refusal.ts';
import { MastodonStatuses } from './mastodon/mastodon-statuses.ts';
import { MastodonFilterTables } from './projections/mastodon/mastodon-filter-tables.ts';

export interface RunningService {
  readonly server: Server;
  readonly url: string;
  /** The socket's bound address (listen.ts). */
  readonly address: string;
  readonly stores: Stores;
  /** Null when PROJECTOR=off: a separate `npm run projector` process keeps the read models. */
  readonly projector: LeasedProjector | null;
  readonly health: ServiceHealth;
  /** Each account's compiled filters, behind POST /api/v2/filters/match and the NATS responder. */
  readonly matchers: AccountMatchers;
  /** Registered apps, authorization codes and app tokens (OAuth 2 sign-in). */
  readonly oauth: OAuthStore;
  /**
   * Stops taking requests, lets in-flight ones finish, stops the projector and closes the stores. A
   * function: it may be handed to a shutdown hook alone.
   */
  readonly close: () => Promise<void>;
}

export interface ServiceOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly stores?: Stores;
  /** Where the webmail reads MAIL_DOMAIN, SMTP_URL, LOG_DIR and its other settings. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a write waits for the read models before answering anyway (default 5 s). */
  readonly catchUpTimeoutMs?: number;
  /** How each adapter opens and closes (a test makes one fail); its stores' entries unused when `stores` is given. */
  readonly adapters?: AdapterTable<ApiAdapters>;
}

/**
 * The HTTP API with, unless PROJECTOR=off, a projector that runs while this process holds the projector
 * lease (the embedded default: everything in one process). Without one, writes wait on the shared
 * checkpoint. The order matters for a start that fails: the worker number is leased first (ids need it),
 * the port is bound next, and the projector lease is taken only once the port is served, so a start
 * that cannot bind (EADDRINUSE) holds no lease; whatever was taken is given back on the way out.
 * With NATS_URL set it also answers filter-matching requests on `filters.match.<account_id>`.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const scope = new OpenedResources();
  return scope.orCloseAll(() => serve(options, scope));
}

/** Everything it opens, leases, binds or starts owes its close to `scope`, in the order a shutdown needs reversed. */
async function serve(options: ServiceOptions, scope: OpenedResources): Promise<RunningService> {
  const { config, logger, stores: given, env = process.env, catchUpTimeoutMs, adapters = API_ADAPTERS } = options;
  const context = { config, logger, env };
  const stores = given ?? { dataDir: config.dataDir, ...(await openAdapters(entriesOf(adapters, STORE_NAMES), context, scope)) };
  // Stores handed in are closed with the rest, as if opened here.
  if (given) for (const name of STORE_NAMES) scope.defer(name, () => given[name].close());
  const { webmailStores, oauth, rateLimits, chainHeads } = await openAdapters(entriesOf(adapters, SERVICE_NAMES), context, scope);
  await scope.open(
    'worker number',
    () => leaseWorkerNumber(stores.reads, { logger }),
    (lease) => lease.release(),
  );
  const accountLog = new AccountLog(stores.events);
  const webmail = await scope.open(
    'webmail',
    () => createWebmail({ accounts: stores.accounts, accountLog, dataDir: config.dataDir, stores: webmailStores, env }),
    (opened) => opened.close(),
  );
  const matchers = new AccountMatchers(stores.reads);
  const nats = natsSettings(config);
  await scope.open(
    'match responder',
    async () => (nats ? NatsMatchResponder.start(nats, matchers, logger, config.natsMatchSubject) : null),
    (started) => started?.close(),
  );
  // Mastodon mode (MASTODON_DATABASE_URL): accounts, apps and tokens are Mastodon's alone (docs/mastodon.md).
  const mastodon = mastodonAccounts(stores.accounts);
  // ... and its filter tables are a read model, kept by whichever process projects.
  const mastodonTables = mastodon ? await MastodonFilterTables.open(mastodon.pool) : null;
  const projector = config.projector
    ? new LeasedProjector(stores.events, stores.reads, stores.notifier, {
        ...(mastodonTables ? { mastodonTables } : {}),
        leaseMs: config.projectorLeaseMs,
        logger,
        observer: projectionMetrics,
        announcerObserver: announcerMetrics,
        onFencedOff: () => projectorFencedWrites.inc(),
      })
    : null;
  const staleWrites = new StaleWrites();
  const catchUp = recordingStaleWrites(projector ?? new ReadYourWrites(stores.reads), staleWrites, () => readYourWritesTimeouts.inc());
  const health = new ServiceHealth({
    ...stores,
    projector,
    staleWrites,
    maxLagMs: config.projectorMaxLagMs,
    ...(mastodon ? { accountsAre: 'mastodon' as const } : {}),
    ...(mastodonTables ? { mastodonTables } : {}),
  });
  const app = createApp({
    ...stores,
    catchUp,
    matchers,
    logger,
    health,
    // The webmail may still run on IMAP; its local accounts would be this service's, which Mastodon mode has none of.
    before: [mastodon && !webmail.config.imapUrl ? mastodonWebmailRefusal() : webmail.middleware],
    oauth,
    ...(mastodon ? { mastodon: { appTokens: (token: string) => mastodon.authenticateAppToken(token) }, statuses: new MastodonStatuses(mastodon.pool) } : {}),
    accountLog,
    ...(rateLimits ? { rateLimits: { store: rateLimits, settings: config.rateLimits } } : {}),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    // About 25 MB at most: a weight unit is a keyword or status, some 250 bytes with its object.
    filterStates: new StreamStateCache<FilterState>({ weigh: filterStateWeight, maxWeight: 100_000 }),
    ...(catchUpTimeoutMs ? { catchUpTimeoutMs } : {}),
  });
  const { server, url, address, stop } = await listen(app, config.port, config.host);
  // Owed in this order so that a shutdown stops taking requests, lets in-flight ones (waiting on the
  // projector) finish, and only then stops the projector; a projector that fails to start is stopped too.
  if (projector) scope.defer('projector', () => projector.stop());
  scope.defer('http server', stop);
  await projector?.start();
  if (chainHeads)
    scope.defer(
      'chain head log',
      logChainHeads(() => chainHeads.head(), logger),
    );
  scope.defer('projection metrics', watchProjection(health));
  scope.defer('announcer metrics', watchAnnouncements(health));
  scope.defer('NATS metrics', watchNats(stores.notifier));
  return { server, url, address, stores, projector, health, matchers, oauth, close: () => scope.closeAllOrFail() };
}
