import type { SettingHelp } from '../shared/process-help.ts';

/** Every variable loadWebmailConfig reads, for the API process's --help (docs/webmail.md). */
export const WEBMAIL_SETTINGS: readonly SettingHelp[] = [
  { name: 'MAIL_DOMAIN', fallback: 'localhost', meaning: 'the domain of local addresses' },
  { name: 'IMAP_URL', fallback: 'unset', meaning: 'sign in against this IMAP server, e.g. imap://mail.example.com:143 or imaps://mail.example.com:993' },
  {
    name: 'SMTP_URL',
    fallback: 'unset',
    meaning: 'with IMAP_URL: submission as the user, e.g. smtp://mail.example.com:587; without: relay for other domains',
  },
  { name: 'WEBMAIL_DES_KEY', fallback: '<DATA_DIR>/webmail-des-key', meaning: 'key that seals IMAP passwords in sessions' },
  { name: 'LOG_DIR', fallback: '<DATA_DIR>/logs', meaning: 'where errors.log and userlogins.log are written' },
  { name: 'WEBMAIL_IDLE_MINUTES', fallback: '10', meaning: 'a session unused this long is gone' },
  { name: 'WEBMAIL_REFRESH_SECONDS', fallback: '60', meaning: 'how often an open folder asks for new mail' },
  {
    name: 'WEBMAIL_LOGIN_RATE_LIMIT',
    fallback: '3',
    meaning: 'failed webmail logins per login name (known or not) within 60 s before its logins are refused (0: off)',
  },
];
