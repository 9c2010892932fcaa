import type { Settings } from '../shared/settings.ts';
import { MASTODON_RATE_LIMITS, type RateLimitSettings } from './throttles.ts';

const MAX = 1_000_000;

/** RATE_LIMITS (on/off) and one RATE_LIMIT_* per throttle, each defaulting to Mastodon's value. */
export function rateLimitSettings(settings: Settings): RateLimitSettings {
  const d = MASTODON_RATE_LIMITS;
  return {
    enabled: settings.switch('RATE_LIMITS', d.enabled),
    authenticatedApi: settings.integer('RATE_LIMIT_AUTHENTICATED_API', d.authenticatedApi, 1, MAX),
    perTokenApi: settings.integer('RATE_LIMIT_PER_TOKEN_API', d.perTokenApi, 1, MAX),
    unauthenticatedApi: settings.integer('RATE_LIMIT_UNAUTHENTICATED_API', d.unauthenticatedApi, 1, MAX),
    paging: settings.integer('RATE_LIMIT_PAGING', d.paging, 1, MAX),
    appRegistrations: settings.integer('RATE_LIMIT_APP_REGISTRATIONS', d.appRegistrations, 1, MAX),
    passwordChange: settings.integer('RATE_LIMIT_PASSWORD_CHANGE', d.passwordChange, 1, MAX),
    oauthSignIn: settings.integer('RATE_LIMIT_OAUTH_SIGN_IN', d.oauthSignIn, 1, MAX),
    filterMatch: settings.integer('RATE_LIMIT_FILTER_MATCH', d.filterMatch, 1, MAX),
  };
}
