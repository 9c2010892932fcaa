import type { Db } from 'mongodb';
import type { AccountStore } from './accounts/account-store.ts';
import { SqliteAccountStore } from './accounts/sqlite-account-store.ts';
import type { IdempotencyStore } from './commands/idempotency/idempotency-store.ts';
import { SqliteIdempotencyStore } from './commands/idempotency/sqlite-idempotency-store.ts';
import { natsSettings, type Config } from './config.ts';
import { redisPublishFailures } from './metrics/metrics.ts';
import { FanOutNotifier } from './notifications/fan-out-notifier.ts';
import { NullNotifier } from './notifications/null-notifier.ts';
import type { Notifier } from './notifications/notifier.ts';
import type { OAuthStore } from './oauth/oauth-store.ts';
import type { RateLimitStore } from './rate-limits/rate-limit-store.ts';
import { SqliteRateLimitStore } from './rate-limits/sqlite-rate-limit-store.ts';
import { SqliteOAuthStore } from './oauth/sqlite-oauth-store.ts';
import type { Logger } from './shared/logger.ts';
import type { MongoSchema } from './shared/mongo-migrations.ts';
import type { EventStore } from './events/event-store.ts';
import { SqliteEventStore } from './events/sqlite-event-store.ts';
import type { ManagedReadStore } from './projections/stores/managed-read-store.ts';
import { SqliteReadStore } from './projections/stores/sqlite-read-store.ts';

/**
 * Which adapter backs each port: EventStoreDB when EVENTSTORE_URL is set, MongoDB when MONGODB_URL is
 * set, the embedded SQLite files in DATA_DIR otherwise. The two choices are independent. MONGODB_URL
 * moves everything but the events: read models, accounts and tokens, Idempotency-Key records, and the
 * webmail's sessions, compose IDs, login counters and mail (webmail/webmail-stores.ts). The server drivers are loaded only when
 * configured, so the embedded default (and every CLI call) starts faster.
 */
export async function openEventStore(config: Config): Promise<EventStore> {
  if (!config.eventStoreUrl) return SqliteEventStore.inDataDir(config.dataDir);
  const { EsdbEventStore } = await import('./events/esdb-event-store.ts');
  return EsdbEventStore.connect(config.eventStoreUrl);
}

/** With MASTODON_DATABASE_URL, Mastodon's own accounts and tokens (read only); else this service's. */
export async function openAccounts(config: Config): Promise<AccountStore> {
  if (config.mastodonDatabaseUrl) {
    const [{ openMastodonDatabase }, { MastodonAccountStore }] = await Promise.all([
      import('./mastodon/mastodon-database.ts'),
      import('./mastodon/mastodon-account-store.ts'),
    ]);
    return new MastodonAccountStore(await openMastodonDatabase(config.mastodonDatabaseUrl));
  }
  return openAccountStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl });
}

/** POSTs' Idempotency-Keys: with the accounts, in DATA_DIR or in MongoDB. */
export function openIdempotency(config: Config): Promise<IdempotencyStore> {
  return openIdempotencyStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl });
}

/** Where one of this service's own stores lives: a file in DATA_DIR, or MongoDB when MONGODB_URL is set. */
export interface StoreLocation {
  readonly dataDir: string;
  /** MONGODB_URL: when set, the store lives in MongoDB, shared by every host. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests give each store a fresh one). */
  readonly mongoDatabase?: string | undefined;
}

/** A store's MongoDB side: what its errors name it, the schemas it migrates, and the store on the database. */
interface MongoSide<T> {
  readonly label: string;
  readonly schemas: readonly MongoSchema[];
  make(db: Db, close: () => Promise<void>): T;
}

/** The one choice of the stores that follow the accounts; the MongoDB driver and adapter are loaded only when chosen. */
async function sqliteOrMongo<T>(location: StoreLocation, sqlite: (dataDir: string) => T, mongo: () => Promise<MongoSide<T>>): Promise<T> {
  if (!location.mongodbUrl) return sqlite(location.dataDir);
  const [{ connectMongo }, side] = await Promise.all([import('./shared/mongo-connection.ts'), mongo()]);
  const { client, db } = await connectMongo(location.mongodbUrl, side.label, side.schemas, location.mongoDatabase);
  return side.make(db, () => client.close());
}

/** `<DATA_DIR>/accounts.sqlite` or MongoDB: accounts and tokens. */
export const openAccountStore = (location: StoreLocation): Promise<AccountStore> =>
  sqliteOrMongo<AccountStore>(
    location,
    (dataDir) => SqliteAccountStore.inDataDir(dataDir),
    async () => {
      const [{ mongoAccountsSchema }, { MongoAccountStore }] = await Promise.all([
        import('./accounts/mongo-accounts-schema.ts'),
        import('./accounts/mongo-account-store.ts'),
      ]);
      return { label: 'accounts', schemas: [mongoAccountsSchema], make: (db, close) => new MongoAccountStore(db, close) };
    },
  );

/** `<DATA_DIR>/idempotency.sqlite` or MongoDB: Idempotency-Key records. */
export const openIdempotencyStore = (location: StoreLocation): Promise<IdempotencyStore> =>
  sqliteOrMongo<IdempotencyStore>(
    location,
    (dataDir) => SqliteIdempotencyStore.inDataDir(dataDir),
    async () => {
      const { MongoIdempotencyStore, mongoIdempotencySchema } = await import('./commands/idempotency/mongo-idempotency-store.ts');
      return { label: 'idempotency keys', schemas: [mongoIdempotencySchema], make: (db, close) => new MongoIdempotencyStore(db, close) };
    },
  );

/** `<DATA_DIR>/oauth.sqlite` or MongoDB: registered apps, authorization codes and app tokens. */
export const openOAuthStore = (location: StoreLocation): Promise<OAuthStore> =>
  sqliteOrMongo<OAuthStore>(
    location,
    (dataDir) => SqliteOAuthStore.inDataDir(dataDir),
    async () => {
      const { MongoOAuthStore, mongoOAuthSchema } = await import('./oauth/mongo-oauth-store.ts');
      return { label: 'OAuth apps', schemas: [mongoOAuthSchema], make: (db, close) => new MongoOAuthStore(db, close) };
    },
  );

/**
 * Rate-limit counters: Redis when REDIS_URL is set (where Mastodon keeps them), else MongoDB when
 * MONGODB_URL is set, else `<DATA_DIR>/rate-limits.sqlite`; each driver is loaded only when chosen.
 */
export async function openRateLimitStore(
  options: StoreLocation & { readonly redisUrl?: string | undefined; readonly redisNamespace?: string | undefined },
): Promise<RateLimitStore> {
  if (options.redisUrl) {
    const { RedisRateLimitStore } = await import('./rate-limits/redis-rate-limit-store.ts');
    return RedisRateLimitStore.connect(options.redisUrl, options.redisNamespace);
  }
  if (options.mongodbUrl) {
    const { MongoRateLimitStore } = await import('./rate-limits/mongo-rate-limit-store.ts');
    return MongoRateLimitStore.connect(options.mongodbUrl, options.mongoDatabase);
  }
  return SqliteRateLimitStore.inDataDir(options.dataDir);
}

export interface ReadStoreOptions {
  /** Only fills a fresh generation (the rebuild command): the embedded store may then skip per-commit syncs. */
  readonly bulk?: boolean;
}

export async function openReadStore(config: Config, options: ReadStoreOptions = {}): Promise<ManagedReadStore> {
  if (config.mongodbUrl) {
    const { MongoReadStore } = await import('./projections/stores/mongo-read-store.ts');
    return MongoReadStore.connect(config.mongodbUrl);
  }
  const store = SqliteReadStore.inDataDir(config.dataDir);
  return options.bulk ? store.relaxDurability() : store;
}

/**
 * NATS when NATS_URL is set, else nobody (nothing is announced); with REDIS_URL also Mastodon's Redis
 * channel beside it. Neither has to be reachable: the service starts and serves, announcements wait in
 * the log, and the clients connect when the servers come (back).
 */
export async function openNotifier(config: Config, logger: Logger, name = 'content-filters'): Promise<Notifier> {
  const primary = await openPrimaryNotifier(config, logger, name);
  if (!config.redisUrl) return primary;
  const { RedisTimelineNotifier } = await import('./notifications/redis-timeline-notifier.ts');
  const redis = RedisTimelineNotifier.connect(config.redisUrl, {
    namespace: config.redisNamespace,
    logger: logger.child({ component: 'redis' }),
    onFailure: () => redisPublishFailures.inc(),
  });
  return new FanOutNotifier(primary, [redis]);
}

async function openPrimaryNotifier(config: Config, logger: Logger, name: string): Promise<Notifier> {
  const nats = natsSettings(config);
  if (!nats) return new NullNotifier();
  const [{ NatsNotifier }, { natsLink }] = await Promise.all([import('./notifications/nats-notifier.ts'), import('./notifications/nats-connection.ts')]);
  const natsLogger = logger.child({ component: 'nats' });
  const link = natsLink(nats, { name, logger: natsLogger });
  const notifier = new NatsNotifier(link, config.natsStream, natsLogger);
  // Not required: whether NATS answers now or later, the service starts.
  await link.firstAttempt;
  return notifier;
}

/** For start-up logs: where events, read models and the shared state live, without credentials. */
export function describeStores(config: Config): { events: string; readModels: string; accountsAndWebmail: string; accountsAndTokens: string } {
  return {
    events: config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
    readModels: config.mongodbUrl ? 'mongodb' : 'sqlite',
    accountsAndWebmail: config.mongodbUrl ? 'mongodb' : 'sqlite',
    accountsAndTokens: config.mastodonDatabaseUrl ? 'mastodon' : config.mongodbUrl ? 'mongodb' : 'sqlite',
  };
}
