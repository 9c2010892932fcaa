import type { SettingReader, SettingRow, SettingTable } from '../shared/setting-table.ts';
import { MASTODON_RATE_LIMITS, type RateLimitSettings } from './throttles.ts';

const MAX = 1_000_000;
const d = MASTODON_RATE_LIMITS;

/** A throttle's budget, defaulting to Mastodon's value (which --help shows). */
const budget = (fallback: number, meaning: string): SettingRow<number> => ({
  fallback: String(fallback),
  meaning,
  read: (settings, name) => settings.integer(name, fallback, 1, MAX),
});

/** RATE_LIMITS (on/off) and one RATE_LIMIT_* per throttle, in the order --help lists them. */
export const RATE_LIMIT_SETTING_TABLE = {
  RATE_LIMITS: {
    fallback: d.enabled ? 'on' : 'off',
    meaning: 'off turns the rate limits off (counters: Redis with REDIS_URL, else MongoDB with MONGODB_URL, else DATA_DIR)',
    read: (settings, name) => settings.switch(name, d.enabled),
  },
  RATE_LIMIT_AUTHENTICATED_API: budget(d.authenticatedApi, "Mastodon's: API requests per account and 5 minutes"),
  RATE_LIMIT_PER_TOKEN_API: budget(d.perTokenApi, "Mastodon's: API requests per token (a user's or an app's) and 5 minutes"),
  RATE_LIMIT_UNAUTHENTICATED_API: budget(d.unauthenticatedApi, "Mastodon's: API requests without a user's token, per client address and 5 minutes"),
  RATE_LIMIT_PAGING: budget(d.paging, "Mastodon's: requests with page, min_id, max_id or since_id per account (else address) and 15 minutes"),
  RATE_LIMIT_APP_REGISTRATIONS: budget(d.appRegistrations, "Mastodon's: POST /api/v1/apps per client address and 10 minutes"),
  RATE_LIMIT_PASSWORD_CHANGE: budget(d.passwordChange, "Mastodon's throttle_password_change/account: PUT requests per account and 10 minutes"),
  RATE_LIMIT_OAUTH_SIGN_IN: budget(d.oauthSignIn, "this service's own: POST /oauth/authorize and /oauth/token per client address and 5 minutes"),
  RATE_LIMIT_FILTER_MATCH: budget(d.filterMatch, "this service's own: POST /api/v2/filters/match per account and 5 minutes (besides the API budget)"),
} satisfies SettingTable;

/** The throttles' settings, read in the order of their fields. */
export function rateLimitSettings(read: SettingReader<typeof RATE_LIMIT_SETTING_TABLE>): RateLimitSettings {
  return {
    enabled: read('RATE_LIMITS'),
    authenticatedApi: read('RATE_LIMIT_AUTHENTICATED_API'),
    perTokenApi: read('RATE_LIMIT_PER_TOKEN_API'),
    unauthenticatedApi: read('RATE_LIMIT_UNAUTHENTICATED_API'),
    paging: read('RATE_LIMIT_PAGING'),
    appRegistrations: read('RATE_LIMIT_APP_REGISTRATIONS'),
    passwordChange: read('RATE_LIMIT_PASSWORD_CHANGE'),
    oauthSignIn: read('RATE_LIMIT_OAUTH_SIGN_IN'),
    filterMatch: read('RATE_LIMIT_FILTER_MATCH'),
  };
}
