import type pg from 'pg';
import type { AccountStore } from './accounts/account-store.ts';
import type { IdempotencyStore } from './commands/idempotency/idempotency-store.ts';
import type { Config } from './config.ts';
import { openChainHeads, type ChainHeads } from './events/chain-heads.ts';
import type { EventStore } from './events/event-store.ts';
import { countedEventStore } from './metrics/counted-event-store.ts';
import type { Notifier } from './notifications/notifier.ts';
import type { OAuthStore } from './oauth/oauth-store.ts';
import type { ManagedReadStore } from './projections/stores/managed-read-store.ts';
import type { RateLimitStore } from './rate-limits/rate-limit-store.ts';
import type { Logger } from './shared/logger.ts';
import { OpenedResources } from './shared/opened-resources.ts';
import { openAccounts, openEventStore, openIdempotency, openNotifier, openOAuthStore, openRateLimitStore, openReadStore } from './stores.ts';
import { loadWebmailConfig } from './webmail/webmail-config.ts';
import { openWebmailStores, type WebmailStores } from './webmail/webmail-stores.ts';

/** What an adapter's opening may read: the settings, where to log, the webmail's own settings (env). */
export interface OpenContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
}

/** How one port's adapter is opened (stores.ts chooses which) and closed again. */
export interface Adapter<T> {
  readonly open: (context: OpenContext) => Promise<T>;
  readonly close: (adapter: T) => unknown;
}

/** One entry per adapter, opened in the table's order and closed in the reverse one. */
export type AdapterTable<A> = { readonly [K in keyof A]: Adapter<A[K]> };

export interface Stores {
  readonly dataDir: string;
  readonly accounts: AccountStore;
  readonly events: EventStore;
  readonly reads: ManagedReadStore;
  readonly notifier: Notifier;
  readonly idempotency: IdempotencyStore;
}

export type StoreAdapters = Omit<Stores, 'dataDir'>;

/** Besides the stores, what the API process opens: the webmail's state, OAuth, rate-limit counters, the chain head's reader. */
export interface ServiceAdapters {
  readonly webmailStores: WebmailStores;
  readonly oauth: OAuthStore;
  /** Null when RATE_LIMITS=off. */
  readonly rateLimits: RateLimitStore | null;
  /** Null for an event store with no log chain head. */
  readonly chainHeads: ChainHeads | null;
}

export type ApiAdapters = StoreAdapters & ServiceAdapters;

export interface ProjectorAdapters {
  readonly events: EventStore;
  readonly reads: ManagedReadStore;
  readonly notifier: Notifier;
  /** Mastodon mode only: the database whose filter tables this process keeps too. */
  readonly mastodonPool: pg.Pool | null;
}

const closing = (adapter: { close(): Promise<void> } | null) => adapter?.close();

/** Every adapter of the API process. The accounts come first: the embedded stores' order since the start. */
export const API_ADAPTERS: AdapterTable<ApiAdapters> = {
  accounts: { open: ({ config }) => openAccounts(config), close: closing },
  events: { open: async ({ config }) => countedEventStore(await openEventStore(config)), close: closing },
  reads: { open: ({ config }) => openReadStore(config), close: closing },
  idempotency: { open: ({ config }) => openIdempotency(config), close: closing },
  notifier: { open: ({ config, logger }) => openNotifier(config, logger), close: closing },
  webmailStores: {
    open: ({ config, env }) => {
      const webmail = loadWebmailConfig(config.dataDir, env);
      const rateLimit = { limit: webmail.loginRateLimit, windowMillis: webmail.loginRateWindowMillis };
      return openWebmailStores({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl, idleMillis: webmail.idleMillis, rateLimit });
    },
    close: closing,
  },
  oauth: { open: ({ config }) => openOAuthStore({ dataDir: config.dataDir, mongodbUrl: config.mongodbUrl }), close: closing },
  rateLimits: {
    open: async ({ config }) =>
      config.rateLimits.enabled
        ? openRateLimitStore({ dataDir: config.dataDir, redisUrl: config.redisUrl, redisNamespace: config.redisNamespace, mongodbUrl: config.mongodbUrl })
        : null,
    close: closing,
  },
  chainHeads: { open: ({ config }) => openChainHeads(config), close: closing },
};

/** The projector process's adapters; its notifier also says when nobody will hear the announcements. */
export const PROJECTOR_ADAPTERS: AdapterTable<ProjectorAdapters> = {
  // Plain, as it always was here: this process appends nothing for countedEventStore to count.
  events: { open: ({ config }) => openEventStore(config), close: closing },
  reads: API_ADAPTERS.reads,
  notifier: {
    open: async ({ config, logger }) => {
      const notifier = await openNotifier(config, logger, 'content-filters-projector');
      // REDIS_URL carries announcements too (Mastodon's channel): only with neither does nobody hear them.
      if (!config.natsUrl && !config.redisUrl)
        logger.warn({ event: 'no_announcements' }, 'neither NATS_URL nor REDIS_URL is set: filters_changed is announced to nobody');
      else if (!config.natsUrl)
        logger.info({ event: 'announcements' }, "NATS_URL is not set: filters_changed goes only to Mastodon's Redis channel (REDIS_URL)");
      return notifier;
    },
    close: closing,
  },
  // Checked as the API checks it: one fatal line when it cannot be used.
  mastodonPool: {
    open: async ({ config }) => {
      if (!config.mastodonDatabaseUrl) return null;
      const { openMastodonDatabase } = await import('./mastodon/mastodon-database.ts');
      return openMastodonDatabase(config.mastodonDatabaseUrl);
    },
    close: (pool) => pool?.end(),
  },
};

/** Opens each entry of `table` in order through `scope`, which then owes their closes. */
export async function openAdapters<A extends object>(table: AdapterTable<A>, context: OpenContext, scope: OpenedResources): Promise<A> {
  const opened: Partial<Record<keyof A, unknown>> = {};
  for (const name of Object.keys(table) as (keyof A & string)[]) {
    const adapter = table[name] as Adapter<unknown>;
    opened[name] = await scope.open(name, () => adapter.open(context), adapter.close);
  }
  return opened as A;
}

/** `table`'s entries named in `names`, in the table's order. */
export function entriesOf<A, K extends keyof A>(table: AdapterTable<A>, names: readonly K[]): AdapterTable<Pick<A, K>> {
  return Object.fromEntries(Object.entries(table).filter(([name]) => names.includes(name as K))) as AdapterTable<Pick<A, K>>;
}

export const STORE_NAMES = ['accounts', 'events', 'reads', 'idempotency', 'notifier'] as const satisfies readonly (keyof StoreAdapters)[];
export const SERVICE_NAMES = ['webmailStores', 'oauth', 'rateLimits', 'chainHeads'] as const satisfies readonly (keyof ServiceAdapters)[];

/**
 * The stores alone (tests hand them to startService, wrapped): if one fails to open (an unreachable
 * NATS or MongoDB), those opened before it are closed again.
 */
export async function openStores(config: Config, logger: Logger, table: AdapterTable<ApiAdapters> = API_ADAPTERS): Promise<Stores> {
  const scope = new OpenedResources();
  const stores = await scope.orCloseAll(() => openAdapters(entriesOf(table, STORE_NAMES), { config, logger, env: process.env }, scope));
  return { dataDir: config.dataDir, ...stores };
}
