import type { NatsSettings } from './notifications/nats-connection-options.ts';
import { rateLimitSettings } from './rate-limits/rate-limit-settings.ts';
import type { RateLimitSettings } from './rate-limits/throttles.ts';
import { logLevelSetting, type LogLevel } from './shared/logger.ts';
import type { TimelineStreamSettings } from './notifications/timeline-stream.ts';
import { mongoUrlWithConcerns, mongoWriteConcern } from './shared/mongo-concerns.ts';
import { BadSetting, Settings } from './shared/settings.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly natsUrl: string | undefined;
  /** NATS_TOKEN, NATS_CREDS (a .creds file) and NATS_TLS_CA (a CA file): how to log in to NATS_URL securely. */
  readonly natsToken: string | undefined;
  readonly natsCreds: string | undefined;
  readonly natsTlsCa: string | undefined;
  /** Filter-matching requests arrive on `<natsMatchSubject>.<account_id>` (default `filters.match`). */
  readonly natsMatchSubject: string;
  /** The JetStream stream that keeps `timeline.*` where the NATS server has JetStream. */
  readonly natsStream: TimelineStreamSettings;
  /** Mastodon's Redis: when set, filters_changed is also published on `timeline:<account_id>` there. */
  readonly redisUrl: string | undefined;
  /** Mastodon's REDIS_NAMESPACE: a prefix (`<namespace>:`) for the Redis channels. */
  readonly redisNamespace: string | undefined;
  readonly logLevel: LogLevel;
  readonly eventStoreUrl: string | undefined;
  /** MONGODB_URL with the write and read concerns of MONGODB_WRITE_CONCERN and primary reads set in it (mongo-concerns.ts). */
  readonly mongodbUrl: string | undefined;
  /** False for HTTP processes of a scaled-out topology: a separate `npm run projector` keeps the read models. */
  readonly projector: boolean;
  /** How long a projector's lease lasts without renewal; a crashed projector's lease is taken over after it. */
  readonly projectorLeaseMs: number;
  /** /health answers 503 (projector_lagging) once the oldest event not yet projected is older than this. */
  readonly projectorMaxLagMs: number;
  /** Proxies in front whose X-Forwarded-For/-Proto/-Host are believed (Koa's app.proxy and maxIpsCount); 0: none. */
  readonly trustProxy: number;
  /** Origins browsers may call /api/* from: `*` (any, as Mastodon) or an exact list. */
  readonly corsOrigins: '*' | readonly string[];
  /** Mastodon's rack-attack throttles (RATE_LIMITS, RATE_LIMIT_*). */
  readonly rateLimits: RateLimitSettings;
  /** Mastodon mode (docs/mastodon.md): Mastodon's PostgreSQL, whose accounts and tokens are the only ones. */
  readonly mastodonDatabaseUrl: string | undefined;
}

/** NATS_URL with the settings that log in to it, for natsConnectionOptions; undefined without NATS_URL. */
export function natsSettings(config: Config): NatsSettings | undefined {
  if (config.natsUrl === undefined) return undefined;
  return { url: config.natsUrl, token: config.natsToken, credsFile: config.natsCreds, tlsCaFile: config.natsTlsCa };
}

/** off (default), on (one proxy), or how many proxies stand in front, each appending to X-Forwarded-For. */
function trustedProxies(settings: Settings): number {
  const raw = settings.optional('TRUST_PROXY');
  if (raw === undefined) return 0;
  const value = raw.toLowerCase();
  if (['off', 'false', '0', 'no'].includes(value)) return 0;
  if (['on', 'true', 'yes'].includes(value)) return 1;
  if (/^[1-9]$/.test(value)) return Number(value);
  throw new BadSetting('TRUST_PROXY', 'on, off or the number of proxies in front (1 to 9)', raw);
}

/** A PostgreSQL URL, as Mastodon's DATABASE_URL and node-postgres take it; checked here so a typo ends the start at once. */
function mastodonDatabaseUrl(settings: Settings): string | undefined {
  const raw = settings.optional('MASTODON_DATABASE_URL');
  if (raw === undefined) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || (url.hostname === '' && !url.searchParams.has('host'))) {
    throw new BadSetting('MASTODON_DATABASE_URL', 'a PostgreSQL URL such as postgresql://mastodon@127.0.0.1:5432/mastodon_production', raw);
  }
  return raw;
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

/** `*`, or origins as browsers send them (`https://elk.zone`, `http://localhost:5173`), separated by commas or spaces. */
function corsOrigins(settings: Settings): '*' | readonly string[] {
  const list = settings
    .text('CORS_ORIGINS', '*')
    .split(/[\s,]+/)
    .filter((origin) => origin !== '');
  if (list.length === 1 && list[0] === '*') return '*';
  const bad = list.find((origin) => !ORIGIN.test(origin));
  if (bad !== undefined) throw new BadSetting('CORS_ORIGINS', '* or origins such as https://elk.zone (scheme, host and port only)', bad);
  return list.map((origin) => origin.toLowerCase());
}

/** MONGODB_URL with its concerns; MONGODB_WRITE_CONCERN is checked even without it, so a typo never waits for the day MongoDB is used. */
function mongodbUrl(settings: Settings): string | undefined {
  const w = mongoWriteConcern(settings);
  const url = settings.optional('MONGODB_URL');
  return url === undefined ? undefined : mongoUrlWithConcerns(url, w);
}

/** The HTTP API's and the projector's settings (docs/operations.md "Configuration", docs/production.md). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const settings = new Settings(env);
  return {
    port: settings.port('PORT', 3000),
    host: settings.text('HOST', '0.0.0.0'),
    dataDir: settings.path('DATA_DIR', './data'),
    natsUrl: settings.optional('NATS_URL'),
    natsToken: settings.optional('NATS_TOKEN'),
    natsCreds: settings.optional('NATS_CREDS'),
    natsTlsCa: settings.optional('NATS_TLS_CA'),
    natsMatchSubject: settings.matching('NATS_MATCH_SUBJECT', 'filters.match', /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'NATS subject tokens joined by dots'),
    natsStream: {
      name: settings.matching('NATS_STREAM', 'CONTENT_FILTERS_TIMELINE', /^[A-Za-z0-9_-]{1,64}$/, 'a JetStream stream name (letters, digits, _ and -)'),
      maxAgeMs: settings.integer('NATS_STREAM_MAX_AGE_S', 7 * 24 * 3600, 1, 10 * 365 * 24 * 3600) * 1000,
      storage: settings.oneOf('NATS_STREAM_STORAGE', 'file', ['file', 'memory'] as const),
      // JetStream allows 1 to 5 replicas (nats-server's StreamMaxReplicas); more than 1 needs a cluster.
      replicas: settings.integer('NATS_STREAM_REPLICAS', 1, 1, 5),
    },
    redisUrl: settings.optional('REDIS_URL'),
    redisNamespace: settings.optional('REDIS_NAMESPACE'),
    logLevel: logLevelSetting(settings),
    eventStoreUrl: settings.optional('EVENTSTORE_URL'),
    mongodbUrl: mongodbUrl(settings),
    projector: settings.switch('PROJECTOR', true),
    projectorLeaseMs: settings.integer('PROJECTOR_LEASE_MS', 10_000, 300, 600_000),
    projectorMaxLagMs: settings.integer('PROJECTOR_MAX_LAG_MS', 5_000, 300, 600_000),
    trustProxy: trustedProxies(settings),
    corsOrigins: corsOrigins(settings),
    rateLimits: rateLimitSettings(settings),
    mastodonDatabaseUrl: mastodonDatabaseUrl(settings),
  };
}
