import type { SettingHelp } from './shared/process-help.ts';

/** Every variable loadConfig reads, for the --help of the API and projector processes (docs/operations.md "Configuration"). */
export const CONFIG_SETTINGS: readonly SettingHelp[] = [
  { name: 'PORT', fallback: '3000', meaning: 'HTTP port (0: the OS chooses)' },
  { name: 'HOST', fallback: '0.0.0.0', meaning: 'HTTP address' },
  { name: 'DATA_DIR', fallback: './data', meaning: 'where the embedded stores keep their files' },
  { name: 'LOG_LEVEL', fallback: 'info', meaning: 'trace, debug, info, warn, error, fatal or silent' },
  { name: 'NATS_URL', fallback: 'unset', meaning: 'NATS server(s), comma-separated: announce filters_changed on NATS and answer filter-matching requests' },
  { name: 'NATS_TOKEN', fallback: 'unset', meaning: 'a token for NATS servers with authorization { token } (or nats://<token>@host)' },
  { name: 'NATS_CREDS', fallback: 'unset', meaning: 'a NATS .creds file (user JWT and NKEY seed) for servers in operator mode' },
  { name: 'NATS_TLS_CA', fallback: 'unset', meaning: "the CA file that signed the NATS server's certificate; requires TLS" },
  { name: 'NATS_MATCH_SUBJECT', fallback: 'filters.match', meaning: 'matching requests arrive on <this>.<account_id>' },
  { name: 'NATS_STREAM', fallback: 'CONTENT_FILTERS_TIMELINE', meaning: 'JetStream stream keeping timeline.* (created when absent, left alone when present)' },
  { name: 'NATS_STREAM_MAX_AGE_S', fallback: '604800', meaning: 'seconds the stream keeps an announcement (7 days)' },
  { name: 'NATS_STREAM_STORAGE', fallback: 'file', meaning: 'file or memory: where the stream keeps its messages' },
  {
    name: 'NATS_STREAM_REPLICAS',
    fallback: '1',
    meaning: 'copies of the stream on a NATS cluster, 1 to 5 (3 survives one server lost); set on a present stream too',
  },
  { name: 'REDIS_URL', fallback: 'unset', meaning: "also publish filters_changed on Mastodon's Redis channels" },
  { name: 'REDIS_NAMESPACE', fallback: 'unset', meaning: "Mastodon's REDIS_NAMESPACE, a prefix for those channels" },
  { name: 'EVENTSTORE_URL', fallback: 'unset', meaning: 'keep the event log in EventStoreDB, e.g. esdb://localhost:2113?tls=false' },
  {
    name: 'MONGODB_URL',
    fallback: 'unset',
    meaning: 'keep read models, accounts and tokens, webmail sessions, mail and login counters in MongoDB, e.g. mongodb://localhost:27017/content_filters',
  },
  {
    name: 'MONGODB_WRITE_CONCERN',
    fallback: 'majority',
    meaning: 'majority, or a number of members, that must hold a MongoDB write before it counts (reads: majority with majority, else local)',
  },
  { name: 'PROJECTOR', fallback: 'on', meaning: 'off runs the HTTP API without the in-process projector' },
  { name: 'PROJECTOR_LEASE_MS', fallback: '10000', meaning: "how long a projector's lease lasts without renewal" },
  { name: 'PROJECTOR_MAX_LAG_MS', fallback: '5000', meaning: '/health answers 503 once the projection lags more than this' },
  { name: 'TRUST_PROXY', fallback: 'off', meaning: 'on, off or the number of proxies whose X-Forwarded-* headers are believed' },
  {
    name: 'RATE_LIMITS',
    fallback: 'on',
    meaning: 'off turns the rate limits off (counters: Redis with REDIS_URL, else MongoDB with MONGODB_URL, else DATA_DIR)',
  },
  { name: 'RATE_LIMIT_AUTHENTICATED_API', fallback: '1500', meaning: "Mastodon's: API requests per account and 5 minutes" },
  { name: 'RATE_LIMIT_PER_TOKEN_API', fallback: '300', meaning: "Mastodon's: API requests per token (a user's or an app's) and 5 minutes" },
  { name: 'RATE_LIMIT_UNAUTHENTICATED_API', fallback: '300', meaning: "Mastodon's: API requests without a user's token, per client address and 5 minutes" },
  {
    name: 'RATE_LIMIT_PAGING',
    fallback: '300',
    meaning: "Mastodon's: requests with page, min_id, max_id or since_id per account (else address) and 15 minutes",
  },
  { name: 'RATE_LIMIT_APP_REGISTRATIONS', fallback: '5', meaning: "Mastodon's: POST /api/v1/apps per client address and 10 minutes" },
  { name: 'RATE_LIMIT_PASSWORD_CHANGE', fallback: '10', meaning: "Mastodon's throttle_password_change/account: PUT requests per account and 10 minutes" },
  { name: 'RATE_LIMIT_OAUTH_SIGN_IN', fallback: '25', meaning: "this service's own: POST /oauth/authorize and /oauth/token per client address and 5 minutes" },
  {
    name: 'RATE_LIMIT_FILTER_MATCH',
    fallback: '300',
    meaning: "this service's own: POST /api/v2/filters/match per account and 5 minutes (besides the API budget)",
  },
  { name: 'CORS_ORIGINS', fallback: '*', meaning: 'origins browsers may call /api/* from: * or a list such as https://elk.zone' },
  {
    name: 'MASTODON_DATABASE_URL',
    fallback: 'unset',
    meaning:
      "Mastodon mode (docs/mastodon.md): Mastodon's PostgreSQL, e.g. postgresql://mastodon@127.0.0.1:5432/mastodon_production; its accounts and tokens are then the only ones",
  },
];

// The projector process answers no matching request and serves only /health and /metrics: no CORS, no
// proxies, no in-process projector switch.
// Nor does it authenticate anyone, so Mastodon's accounts and tokens are no business of it.
const NOT_READ_BY_PROJECTOR = new Set(['NATS_MATCH_SUBJECT', 'PROJECTOR', 'TRUST_PROXY', 'CORS_ORIGINS', 'MASTODON_DATABASE_URL']);

/** Every variable the projector process reads, for its --help. */
export const PROJECTOR_SETTINGS: readonly SettingHelp[] = CONFIG_SETTINGS.filter((setting) => !NOT_READ_BY_PROJECTOR.has(setting.name));

/**
 * Only the projector's own settings of `env`: one meant for the API processes (say TRUST_PROXY=maybe in a
 * shared environment file) neither changes nor stops the projector.
 */
export function projectorEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const picked: NodeJS.ProcessEnv = {};
  for (const { name } of PROJECTOR_SETTINGS) if (env[name] !== undefined) picked[name] = env[name];
  return picked;
}
