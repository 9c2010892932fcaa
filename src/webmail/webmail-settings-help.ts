import type { SettingHelp } from '../shared/process-help.ts';
import { helpOf } from '../shared/setting-table.ts';
import { WEBMAIL_SETTING_TABLE } from './webmail-config.ts';

/** Every variable loadWebmailConfig reads, for the API process's --help (docs/webmail.md). */
export const WEBMAIL_SETTINGS: readonly SettingHelp[] = helpOf(WEBMAIL_SETTING_TABLE);
