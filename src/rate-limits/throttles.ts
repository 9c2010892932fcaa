/** What a throttle may key a request by; all of it is found before any route runs. */
export interface RequestFacts {
  readonly method: string;
  /** The template of the route the router will run (`/api/v2/filters/:id`), null when none takes the path. */
  readonly route: string | null;
  /** Mastodon's `api_request?`: the route, or the canonical path when no route takes it, is under `/api`. */
  readonly api: boolean;
  /** Mastodon's `throttleable_remote_ip`: the client's address, an IPv6 one cut to its /64. */
  readonly ip: string;
  /** Mastodon's `authenticated_user_id`: the account of a valid user token; null otherwise. */
  readonly userId: string | null;
  /** Mastodon's `authenticated_token_id`: any valid token, a user's or an app's; null otherwise. */
  readonly tokenId: string | null;
  /** Mastodon's `paging_request?`: `page`, `min_id`, `max_id` or `since_id` given. */
  readonly paging: boolean;
}

export interface Throttle {
  readonly name: string;
  readonly limit: number;
  readonly periodSeconds: number;
  /** The key a request counts under, or null when this throttle does not apply to it. */
  readonly discriminator: (request: RequestFacts) => string | null;
}

export interface RateLimitSettings {
  readonly enabled: boolean;
  readonly authenticatedApi: number;
  readonly perTokenApi: number;
  readonly unauthenticatedApi: number;
  readonly paging: number;
  readonly appRegistrations: number;
  readonly passwordChange: number;
  /** This service's own: POSTs to the OAuth endpoints that check a password or a client secret. */
  readonly oauthSignIn: number;
  /** This service's own: filter matching, besides the API budget. */
  readonly filterMatch: number;
  /** The clock the windows are counted on (default Date.now); tests pin it, so that no count straddles a window's end. */
  readonly now?: () => number;
  /**
   * How long a request waits for its count before it is answered 503 (default COUNT_DEADLINE_MS, 40 ms).
   * Tests that judge counts give more: on a loaded machine a count may come back late without the store
   * being away, and those tests are about counting, not about the deadline, which has tests of its own.
   */
  readonly countDeadlineMs?: number;
}

/** Mastodon's values (config/initializers/rack_attack.rb), and this service's own two. */
export const MASTODON_RATE_LIMITS: RateLimitSettings = {
  enabled: true,
  authenticatedApi: 1500,
  perTokenApi: 300,
  unauthenticatedApi: 300,
  paging: 300,
  appRegistrations: 5,
  passwordChange: 10,
  oauthSignIn: 25,
  filterMatch: 300,
};

const MINUTES = 60;

/**
 * Mastodon's rack-attack throttles that have routes here, in its order (the first one exceeded answers,
 * and the later ones do not count that request), then this service's own. Those Mastodon keeps for
 * routes this service does not have (media, sign-up, statuses, /auth) are left out.
 */
export function throttles(settings: RateLimitSettings): readonly Throttle[] {
  return [
    {
      name: 'throttle_authenticated_api',
      limit: settings.authenticatedApi,
      periodSeconds: 5 * MINUTES,
      discriminator: (r) => (r.api ? r.userId : null),
    },
    {
      name: 'throttle_per_token_api',
      limit: settings.perTokenApi,
      periodSeconds: 5 * MINUTES,
      discriminator: (r) => (r.api ? r.tokenId : null),
    },
    {
      name: 'throttle_unauthenticated_api',
      limit: settings.unauthenticatedApi,
      periodSeconds: 5 * MINUTES,
      discriminator: (r) => (r.api && r.userId === null ? r.ip : null),
    },
    {
      name: 'throttle_authenticated_paging',
      limit: settings.paging,
      periodSeconds: 15 * MINUTES,
      discriminator: (r) => (r.paging ? r.userId : null),
    },
    {
      name: 'throttle_unauthenticated_paging',
      limit: settings.paging,
      periodSeconds: 15 * MINUTES,
      discriminator: (r) => (r.paging && r.userId === null ? r.ip : null),
    },
    {
      name: 'throttle_oauth_application_registrations/ip',
      limit: settings.appRegistrations,
      periodSeconds: 10 * MINUTES,
      discriminator: (r) => (r.method === 'POST' && r.route === '/api/v1/apps' ? r.ip : null),
    },
    {
      // Mastodon's condition is `req.put? || (req.patch? && req.path_matches?('/auth'))`: every PUT of a
      // signed-in user counts, whatever its path, and so PUT /api/v*/filters/... does here.
      name: 'throttle_password_change/account',
      limit: settings.passwordChange,
      periodSeconds: 10 * MINUTES,
      discriminator: (r) => (r.method === 'PUT' ? r.userId : null),
    },
    {
      name: 'content_filters_oauth_sign_in/ip',
      limit: settings.oauthSignIn,
      periodSeconds: 5 * MINUTES,
      discriminator: (r) => (r.method === 'POST' && (r.route === '/oauth/authorize' || r.route === '/oauth/token') ? r.ip : null),
    },
    {
      name: 'content_filters_filter_match',
      limit: settings.filterMatch,
      periodSeconds: 5 * MINUTES,
      discriminator: (r) => (r.method === 'POST' && r.route === '/api/v2/filters/match' ? (r.userId ?? r.tokenId ?? r.ip) : null),
    },
  ];
}

/** Fixed windows aligned to the epoch, as rack-attack's: the window's number and when it ends. */
export function windowOf(periodSeconds: number, nowMs: number): { index: number; endsAtMs: number } {
  const index = Math.floor(nowMs / 1000 / periodSeconds);
  return { index, endsAtMs: (index + 1) * periodSeconds * 1000 };
}
