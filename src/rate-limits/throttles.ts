/** What a throttle may key a request by; the identity is found before any route runs. */
export interface RequestFacts {
  readonly method: string;
  readonly path: string;
  readonly ip: string;
  /** The account of a valid user token; null otherwise. */
  readonly accountId: string | null;
  /** The id of a valid app-only (client_credentials) token; null otherwise. */
  readonly appTokenId: string | null;
}

export interface Throttle {
  readonly name: string;
  readonly limit: number;
  readonly periodSeconds: number;
  /** The key a request counts under, or null when this throttle does not apply to it. */
  readonly discriminator: (request: RequestFacts) => string | null;
  /** Its counts are the X-RateLimit-* headers of API answers (Mastodon's RateLimitHeaders). */
  readonly reportsHeaders: boolean;
}

export interface RateLimitSettings {
  readonly enabled: boolean;
  readonly authenticatedApi: number;
  readonly appTokenApi: number;
  readonly unauthenticatedApi: number;
  readonly filterMatch: number;
  readonly appRegistrations: number;
  readonly signInAttempts: number;
}

/** Mastodon's values (config/initializers/rack_attack.rb). */
export const MASTODON_RATE_LIMITS: RateLimitSettings = {
  enabled: true,
  authenticatedApi: 1500,
  appTokenApi: 300,
  unauthenticatedApi: 300,
  filterMatch: 300,
  appRegistrations: 5,
  signInAttempts: 25,
};

const isApi = (r: RequestFacts) => r.path === '/api' || r.path.startsWith('/api/');
const FIVE_MINUTES = 300;

/**
 * Mastodon's rack-attack throttles, applied to this service's routes. Every request counts once in each
 * throttle that applies; a filter-matching request also counts in its own, smaller budget, since one
 * request may carry many statuses.
 */
export function throttles(settings: RateLimitSettings): readonly Throttle[] {
  return [
    {
      name: 'throttle_authenticated_api',
      limit: settings.authenticatedApi,
      periodSeconds: FIVE_MINUTES,
      reportsHeaders: true,
      discriminator: (r) => (isApi(r) && r.accountId !== null ? r.accountId : null),
    },
    {
      name: 'throttle_per_token_api',
      limit: settings.appTokenApi,
      periodSeconds: FIVE_MINUTES,
      reportsHeaders: true,
      discriminator: (r) => (isApi(r) && r.accountId === null && r.appTokenId !== null ? r.appTokenId : null),
    },
    {
      name: 'throttle_unauthenticated_api',
      limit: settings.unauthenticatedApi,
      periodSeconds: FIVE_MINUTES,
      reportsHeaders: true,
      discriminator: (r) => (isApi(r) && r.accountId === null && r.appTokenId === null ? r.ip : null),
    },
    {
      name: 'throttle_filter_match',
      limit: settings.filterMatch,
      periodSeconds: FIVE_MINUTES,
      reportsHeaders: false,
      discriminator: (r) => (r.method === 'POST' && r.path === '/api/v2/filters/match' ? (r.accountId ?? r.appTokenId ?? r.ip) : null),
    },
    {
      name: 'throttle_oauth_application_registrations/ip',
      limit: settings.appRegistrations,
      periodSeconds: 10 * 60,
      reportsHeaders: false,
      discriminator: (r) => (r.method === 'POST' && r.path === '/api/v1/apps' ? r.ip : null),
    },
    {
      name: 'throttle_sign_in_attempts/ip',
      limit: settings.signInAttempts,
      periodSeconds: FIVE_MINUTES,
      reportsHeaders: false,
      discriminator: (r) => (r.method === 'POST' && (r.path === '/oauth/authorize' || r.path === '/oauth/token') ? r.ip : null),
    },
  ];
}

/** Fixed windows aligned to the epoch, as rack-attack's: the window's number and when it ends. */
export function windowOf(periodSeconds: number, nowMs: number): { index: number; endsAtMs: number } {
  const index = Math.floor(nowMs / 1000 / periodSeconds);
  return { index, endsAtMs: (index + 1) * periodSeconds * 1000 };
}
