import { CONFIG_SETTING_TABLE } from './config-settings.ts';
import { environmentOf, helpOf, withoutSettings } from './shared/setting-table.ts';
import type { SettingHelp } from './shared/process-help.ts';

/** Every variable loadConfig reads, for the --help of the API and projector processes (docs/operations.md "Configuration"). */
export const CONFIG_SETTINGS: readonly SettingHelp[] = helpOf(CONFIG_SETTING_TABLE);

// The projector process answers no matching request and serves only /health and /metrics: no CORS, no
// proxies, no in-process projector switch.
// Nor does it authenticate anyone, so Mastodon's accounts and tokens are no business of it.
const PROJECTOR_SETTING_TABLE = withoutSettings(CONFIG_SETTING_TABLE, [
  'NATS_MATCH_SUBJECT',
  'PROJECTOR',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'MASTODON_DATABASE_URL',
]);

/** Every variable the projector process reads, for its --help. */
export const PROJECTOR_SETTINGS: readonly SettingHelp[] = helpOf(PROJECTOR_SETTING_TABLE);

/**
 * Only the projector's own settings of `env`: one meant for the API processes (say TRUST_PROXY=maybe in a
 * shared environment file) neither changes nor stops the projector.
 */
export const projectorEnvironment = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => environmentOf(PROJECTOR_SETTING_TABLE, env);
