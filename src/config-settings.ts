import { RATE_LIMIT_SETTING_TABLE } from './rate-limits/rate-limit-settings.ts';
import { LOG_LEVEL_SETTING } from './shared/logger.ts';
import { mongoWriteConcern } from './shared/mongo-concerns.ts';
import { unchecked, type SettingTable } from './shared/setting-table.ts';
import { BadSetting, type Settings } from './shared/settings.ts';

/** off (default), on (one proxy), or how many proxies stand in front, each appending to X-Forwarded-For. */
function trustedProxies(settings: Settings, name: string): number {
  const raw = settings.optional(name);
  if (raw === undefined) return 0;
  const value = raw.toLowerCase();
  if (['off', 'false', '0', 'no'].includes(value)) return 0;
  if (['on', 'true', 'yes'].includes(value)) return 1;
  if (/^[1-9]$/.test(value)) return Number(value);
  throw new BadSetting(name, 'on, off or the number of proxies in front (1 to 9)', raw);
}

/** A PostgreSQL URL, as Mastodon's DATABASE_URL and node-postgres take it; checked here so a typo ends the start at once. */
function mastodonDatabaseUrl(settings: Settings, name: string): string | undefined {
  const raw = settings.optional(name);
  if (raw === undefined) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || (url.hostname === '' && !url.searchParams.has('host'))) {
    throw new BadSetting(name, 'a PostgreSQL URL such as postgresql://mastodon@127.0.0.1:5432/mastodon_production', raw);
  }
  return raw;
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

/** `*`, or origins as browsers send them (`https://elk.zone`, `http://localhost:5173`), separated by commas or spaces. */
function corsOrigins(settings: Settings, name: string): '*' | readonly string[] {
  const list = settings
    .text(name, '*')
    .split(/[\s,]+/)
    .filter((origin) => origin !== '');
  if (list.length === 1 && list[0] === '*') return '*';
  const bad = list.find((origin) => !ORIGIN.test(origin));
  if (bad !== undefined) throw new BadSetting(name, '* or origins such as https://elk.zone (scheme, host and port only)', bad);
  return list.map((origin) => origin.toLowerCase());
}

/**
 * Every variable loadConfig reads, in the order the --help of the API and projector processes lists them
 * (docs/operations.md "Configuration"): what it means, its default, and how it is read.
 */
export const CONFIG_SETTING_TABLE = {
  PORT: { fallback: '3000', meaning: 'HTTP port (0: the OS chooses)', read: (s, name) => s.port(name, 3000) },
  HOST: { fallback: '0.0.0.0', meaning: 'HTTP address', read: (s, name) => s.text(name, '0.0.0.0') },
  DATA_DIR: { fallback: './data', meaning: 'where the embedded stores keep their files', read: (s, name) => s.path(name, './data') },
  LOG_LEVEL: LOG_LEVEL_SETTING,
  NATS_URL: {
    fallback: 'unset',
    meaning: 'NATS server(s), comma-separated: announce filters_changed on NATS and answer filter-matching requests',
    read: unchecked,
  },
  NATS_TOKEN: { fallback: 'unset', meaning: 'a token for NATS servers with authorization { token } (or nats://<token>@host)', read: unchecked },
  NATS_CREDS: { fallback: 'unset', meaning: 'a NATS .creds file (user JWT and NKEY seed) for servers in operator mode', read: unchecked },
  NATS_TLS_CA: { fallback: 'unset', meaning: "the CA file that signed the NATS server's certificate; requires TLS", read: unchecked },
  NATS_MATCH_SUBJECT: {
    fallback: 'filters.match',
    meaning: 'matching requests arrive on <this>.<account_id>',
    read: (s, name) => s.matching(name, 'filters.match', /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'NATS subject tokens joined by dots'),
  },
  NATS_STREAM: {
    fallback: 'CONTENT_FILTERS_TIMELINE',
    meaning: 'JetStream stream keeping timeline.* (created when absent, left alone when present)',
    read: (s, name) => s.matching(name, 'CONTENT_FILTERS_TIMELINE', /^[A-Za-z0-9_-]{1,64}$/, 'a JetStream stream name (letters, digits, _ and -)'),
  },
  NATS_STREAM_MAX_AGE_S: {
    fallback: String(7 * 24 * 3600),
    meaning: 'seconds the stream keeps an announcement (7 days)',
    read: (s, name) => s.integer(name, 7 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
  },
  NATS_STREAM_STORAGE: {
    fallback: 'file',
    meaning: 'file or memory: where the stream keeps its messages',
    read: (s, name) => s.oneOf(name, 'file', ['file', 'memory'] as const),
  },
  NATS_STREAM_REPLICAS: {
    fallback: '1',
    meaning: 'copies of the stream on a NATS cluster, 1 to 5 (3 survives one server lost); set on a present stream too',
    // JetStream allows 1 to 5 replicas (nats-server's StreamMaxReplicas); more than 1 needs a cluster.
    read: (s, name) => s.integer(name, 1, 1, 5),
  },
  REDIS_URL: { fallback: 'unset', meaning: "also publish filters_changed on Mastodon's Redis channels", read: unchecked },
  REDIS_NAMESPACE: { fallback: 'unset', meaning: "Mastodon's REDIS_NAMESPACE, a prefix for those channels", read: unchecked },
  EVENTSTORE_URL: { fallback: 'unset', meaning: 'keep the event log in EventStoreDB, e.g. esdb://localhost:2113?tls=false', read: unchecked },
  MONGODB_URL: {
    fallback: 'unset',
    meaning: 'keep read models, accounts and tokens, webmail sessions, mail and login counters in MongoDB, e.g. mongodb://localhost:27017/content_filters',
    read: unchecked,
  },
  MONGODB_WRITE_CONCERN: {
    fallback: 'majority',
    meaning: 'majority, or a number of members, that must hold a MongoDB write before it counts (reads: majority with majority, else local)',
    read: mongoWriteConcern,
  },
  PROJECTOR: { fallback: 'on', meaning: 'off runs the HTTP API without the in-process projector', read: (s, name) => s.switch(name, true) },
  PROJECTOR_LEASE_MS: {
    fallback: '10000',
    meaning: "how long a projector's lease lasts without renewal",
    read: (s, name) => s.integer(name, 10_000, 300, 600_000),
  },
  PROJECTOR_MAX_LAG_MS: {
    fallback: '5000',
    meaning: '/health answers 503 once the projection lags more than this',
    read: (s, name) => s.integer(name, 5_000, 300, 600_000),
  },
  TRUST_PROXY: { fallback: 'off', meaning: 'on, off or the number of proxies whose X-Forwarded-* headers are believed', read: trustedProxies },
  ...RATE_LIMIT_SETTING_TABLE,
  CORS_ORIGINS: { fallback: '*', meaning: 'origins browsers may call /api/* from: * or a list such as https://elk.zone', read: corsOrigins },
  MASTODON_DATABASE_URL: {
    fallback: 'unset',
    meaning:
      "Mastodon mode (docs/mastodon.md): Mastodon's PostgreSQL, e.g. postgresql://mastodon@127.0.0.1:5432/mastodon_production; its accounts and tokens are then the only ones",
    read: mastodonDatabaseUrl,
  },
} satisfies SettingTable;
