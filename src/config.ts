import { CONFIG_SETTING_TABLE } from './config-settings.ts';
import type { NatsSettings } from './notifications/nats-connection-options.ts';
import { rateLimitSettings } from './rate-limits/rate-limit-settings.ts';
import type { RateLimitSettings } from './rate-limits/throttles.ts';
import type { LogLevel } from './shared/logger.ts';
import type { TimelineStreamSettings } from './notifications/timeline-stream.ts';
import { mongoUrlWithConcerns } from './shared/mongo-concerns.ts';
import { settingReader, type SettingReader } from './shared/setting-table.ts';

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

type ConfigReader = SettingReader<typeof CONFIG_SETTING_TABLE>;

/** NATS_URL with the settings that log in to it, for natsConnectionOptions; undefined without NATS_URL. */
export function natsSettings(config: Config): NatsSettings | undefined {
  if (config.natsUrl === undefined) return undefined;
  return { url: config.natsUrl, token: config.natsToken, credsFile: config.natsCreds, tlsCaFile: config.natsTlsCa };
}

/** MONGODB_URL with its concerns; MONGODB_WRITE_CONCERN is checked even without it, so a typo never waits for the day MongoDB is used. */
function mongodbUrl(read: ConfigReader): string | undefined {
  const w = read('MONGODB_WRITE_CONCERN');
  const url = read('MONGODB_URL');
  return url === undefined ? undefined : mongoUrlWithConcerns(url, w);
}

/** The HTTP API's and the projector's settings (docs/operations.md "Configuration", docs/production.md). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Read in this order, which decides which of two bad settings the fatal line names.
  const read = settingReader(CONFIG_SETTING_TABLE, env);
  return {
    port: read('PORT'),
    host: read('HOST'),
    dataDir: read('DATA_DIR'),
    natsUrl: read('NATS_URL'),
    natsToken: read('NATS_TOKEN'),
    natsCreds: read('NATS_CREDS'),
    natsTlsCa: read('NATS_TLS_CA'),
    natsMatchSubject: read('NATS_MATCH_SUBJECT'),
    natsStream: {
      name: read('NATS_STREAM'),
      maxAgeMs: read('NATS_STREAM_MAX_AGE_S') * 1000,
      storage: read('NATS_STREAM_STORAGE'),
      replicas: read('NATS_STREAM_REPLICAS'),
    },
    redisUrl: read('REDIS_URL'),
    redisNamespace: read('REDIS_NAMESPACE'),
    logLevel: read('LOG_LEVEL'),
    eventStoreUrl: read('EVENTSTORE_URL'),
    mongodbUrl: mongodbUrl(read),
    projector: read('PROJECTOR'),
    projectorLeaseMs: read('PROJECTOR_LEASE_MS'),
    projectorMaxLagMs: read('PROJECTOR_MAX_LAG_MS'),
    trustProxy: read('TRUST_PROXY'),
    corsOrigins: read('CORS_ORIGINS'),
    rateLimits: rateLimitSettings(read),
    mastodonDatabaseUrl: read('MASTODON_DATABASE_URL'),
  };
}
