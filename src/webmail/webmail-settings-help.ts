import type { SettingHelp } from '../shared/process-help.ts';

/** Every variable loadWebmailConfig reads, for the API process's --help (docs/webmail.md). */
export const WEBMAIL_SETTINGS: readonly SettingHelp[] = [
  { name: 'MAIL_DOMAIN', fallback: 'localhost', meaning: 'the domain of local addresses' },
  { name: 'SMTP_URL', fallback: 'unset', meaning: 'relay for other domains, e.g. smtp://user:pass@mail.example.com:587' },
  { name: 'LOG_DIR', fallback: '<DATA_DIR>/logs', meaning: 'where errors.log and userlogins.log are written' },
  { name: 'WEBMAIL_IDLE_MINUTES', fallback: '10', meaning: 'a session unused this long is gone' },
  { name: 'WEBMAIL_REFRESH_SECONDS', fallback: '60', meaning: 'how often an open folder asks for new mail' },
  { name: 'WEBMAIL_LOGIN_RATE_LIMIT', fallback: '3', meaning: 'failed logins per account within 60 s before logins are refused (0: off)' },
];
