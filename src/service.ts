import type { Server } from 'node:http';
import { AccountLog } from './accounts/account-log.ts';
import type { AccountStore } from './accounts/account-store.ts';
import { filterStateWeight, type FilterState } from './commands/filter/filter-state.ts';
import { StreamStateCache } from './commands/stream-state-cache.ts';
import type { IdempotencyStore } from './commands/idempotency/idempotency-store.ts';
import { natsSettings, type Config } from './config.ts';
import type { EventStore } from './events/event-store.ts';
import { openChainHeads } from './events/chain-heads.ts';
import { logChainHeads } from './events/chain-head-log.ts';
import { ServiceHealth } from './health/service-health.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { AccountMatchers } from './matching/account-matchers.ts';
import { countedEventStore } from './metrics/counted-event-store.ts';
import { announcerMetrics, watchAnnouncements } from './metrics/announcer-metrics.ts';
import { watchNats } from './metrics/metrics.ts';
import { projectionMetrics, projectorFencedWrites, readYourWritesTimeouts, watchProjection } from './metrics/projection-metrics.ts';
import { NatsMatchResponder } from './notifications/nats-match-responder.ts';
import type { Notifier } from './notifications/notifier.ts';
import { LeasedProjector } from './projections/runtime/leased-projector.ts';
import { recordingStaleWrites, StaleWrites } from './projections/runtime/stale-writes.ts';
import { ReadYourWrites } from './projections/runtime/read-your-writes.ts';
import type { ManagedReadStore } from './projections/stores/managed-read-store.ts';
import type { Logger } from './shared/logger.ts';
import { leaseWorkerNumber } from './shared/worker-numbers.ts';
import { openAccounts, openEventStore, openIdempotency, openNotifier, openReadStore } from './stores.ts';
import { createWebmail } from './webmail/index.ts';
import type { OAuthStore } from './oauth/oauth-store.ts';
import { openOAuthStore } from './oauth/open-oauth-store.ts';
import { openRateLimitStore } from './rate-limits/open-rate-limit-store.ts';
import { mastodonAccounts } from './mastodon/mastodon-account-store.ts';
import { mastodonWebmailRefusal } from './mastodon/mastodon-webmail-refusal.ts';
import { MastodonStatuses } from './mastodon/mastodon-statuses.ts';
import { MastodonFilterTables } from './projections/mastodon/mastodon-filter-tables.ts';

export interface Stores {
  readonly dataDir: string;
  readonly accounts: AccountStore;
  readonly events: EventStore;
  readonly reads: ManagedReadStore;
  readonly notifier: Notifier;
  readonly idempotency: IdempotencyStore;
}

/** The embedded default for every port not configured otherwise (see stores.ts). */
export async function openStores(config: Config, logger: Logger): Promise<Stores> {
  // What opened before a later store failed to open (an unreachable NATS or Redis) is closed again.
  const opened: { close(): Promise<void> }[] = [];
  const keep = <T extends { close(): Promise<void> }>(store: T): T => (opened.push(store), store);
  try {
    return {
      dataDir: config.dataDir,
      accounts: keep(await openAccounts(config)),
      events: keep(countedEventStore(await openEventStore(config))),
      reads: keep(await openReadStore(config)),
      idempotency: keep(await openIdempotency(config)),
      notifier: keep(await openNotifier(config, logger)),
    };
  } catch (error) {
    await Promise.allSettled(opened.map((store) => store.close()));
    throw error;
  }
}

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
}

/** Runs `step`; if it fails, runs `undo` (best effort) and fails with the step's error. */
async function orUndo<T>(step: () => Promise<T>, undo: () => Promise<void>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await undo().catch(() => {});
    throw error;
  }
}

/**
 * The HTTP API with, unless PROJECTOR=off, a projector that runs while this process holds the projector
 * lease (the embedded default: everything in one process). Without one, writes wait on the shared
 * checkpoint. The order matters for a start that fails: the worker number is leased first (ids need it),
 * the port is bound next, and the projector lease is taken only once the port is served, so a start
 * that cannot bind (EADDRINUSE) holds no lease; whatever was taken is given back on the way out.
 * With NATS_URL set it also answers filter-matching requests on `filters.match.<account_id>`.
 */
export async function startService({ config, logger, stores: given, env, catchUpTimeoutMs }: ServiceOptions): Promise<RunningService> {
  const stores = given ?? (await openStores(config, logger));
  const closeStores = async () => {
    await stores.notifier.close();
    await Promise.all([stores.accounts.close(), stores.events.close(), stores.reads.close(), stores.idempotency.close()]);
  };
  const workerNumber = await orUndo(() => leaseWorkerNumber(stores.reads, { logger }), closeStores);
  const accountLog = new AccountLog(stores.events);
  const webmail = await orUndo(
    () => createWebmail({ accounts: stores.accounts, accountLog, dataDir: config.dataDir, mongodbUrl: config.mongodbUrl, env: env ?? process.env }),
    async () => {
      await workerNumber.release();
      await closeStores();
    },
  );
  const oauth = await orUndo(
    () => openOAuthStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl }),
    async () => {
      await webmail.close();
      await workerNumber.release();
      await closeStores();
    },
  );
  const rateLimitStore = config.rateLimits.enabled
    ? await orUndo(
        () => openRateLimitStore({ dataDir: config.dataDir, redisUrl: config.redisUrl, redisNamespace: config.redisNamespace, mongodbUrl: config.mongodbUrl }),
        async () => {
          await oauth.close();
          await webmail.close();
          await workerNumber.release();
          await closeStores();
        },
      )
    : null;
  const matchers = new AccountMatchers(stores.reads);
  const nats = natsSettings(config);
  const responder = nats
    ? await orUndo(
        () => NatsMatchResponder.start(nats, matchers, logger, config.natsMatchSubject),
        async () => {
          await rateLimitStore?.close();
          await oauth.close();
          await webmail.close();
          await workerNumber.release();
          await closeStores();
        },
      )
    : null;
  const releaseAll = async () => {
    await responder?.close();
    await rateLimitStore?.close();
    await oauth.close();
    await webmail.close();
    await workerNumber.release();
    await closeStores();
  };
  // Mastodon mode (MASTODON_DATABASE_URL): accounts, apps and tokens are Mastodon's alone (docs/mastodon.md).
  const mastodon = mastodonAccounts(stores.accounts);
  // ... and its filter tables are a read model, kept by whichever process projects.
  const mastodonTables = mastodon ? await orUndo(() => MastodonFilterTables.open(mastodon.pool), releaseAll) : null;
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
    ...(rateLimitStore ? { rateLimits: { store: rateLimitStore, settings: config.rateLimits } } : {}),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    // About 25 MB at most: a weight unit is a keyword or status, some 250 bytes with its object.
    filterStates: new StreamStateCache<FilterState>({ weigh: filterStateWeight, maxWeight: 100_000 }),
    ...(catchUpTimeoutMs ? { catchUpTimeoutMs } : {}),
  });
  const { server, url, address, stop } = await orUndo(() => listen(app, config.port, config.host), releaseAll);
  await orUndo(
    async () => projector?.start(),
    async () => {
      await stop();
      await projector?.stop();
      await releaseAll();
    },
  );
  const chainHeads = await openChainHeads(config);
  const stopHeadLog = chainHeads ? logChainHeads(() => chainHeads.head(), logger) : () => {};
  const unwatchProjection = watchProjection(health);
  const unwatchAnnouncements = watchAnnouncements(health);
  const unwatchNats = watchNats(stores.notifier);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopHeadLog();
      unwatchProjection();
      unwatchAnnouncements();
      unwatchNats();
      await stop();
      await projector?.stop();
      await releaseAll();
      await chainHeads?.close();
    })());
  return { server, url, address, stores, projector, health, matchers, oauth, close };
}
