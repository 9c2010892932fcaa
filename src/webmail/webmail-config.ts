import { join, resolve } from 'node:path';
import { settingReader, unchecked, type SettingTable } from '../shared/setting-table.ts';

/** Settings read from the environment; every one has a default that works without configuration. */
export interface WebmailConfig {
  /** Addresses are `<username>@<mailDomain>`; mail to this domain is delivered locally. */
  readonly mailDomain: string;
  /**
   * Without IMAP_URL: the relay for other domains, e.g. `smtp://user:pass@mail.example.com:587`; unset
   * refuses them. With IMAP_URL: the submission server, e.g. `smtp://mail.example.com:587`, which every
   * user's mail goes through, authenticated as that user.
   */
  readonly smtpUrl: string | undefined;
  /** The IMAP server whose users sign in (`imap://host:143`, STARTTLS when offered, or `imaps://host:993`); unset: the local accounts. */
  readonly imapUrl: string | undefined;
  /** The key that seals IMAP passwords in sessions (Roundcube's des_key); unset: `<DATA_DIR>/webmail-des-key`. */
  readonly desKey: string | undefined;
  /** Where errors.log and userlogins.log are written. */
  readonly logDir: string;
  /** A session unused for this long is gone (Roundcube's session_lifetime). */
  readonly idleMillis: number;
  /** How often an open mailbox asks for new mail (Roundcube's refresh_interval). */
  readonly refreshSeconds: number;
  /** Failed logins per account and window before further attempts are refused (login_rate_limit). */
  readonly loginRateLimit: number;
  readonly loginRateWindowMillis: number;
}

/** Every variable loadWebmailConfig reads, in the order the API process's --help lists them (docs/webmail.md). */
export const WEBMAIL_SETTING_TABLE = {
  MAIL_DOMAIN: {
    fallback: 'localhost',
    meaning: 'the domain of local addresses',
    read: (s, name) => s.matching(name, 'localhost', /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, 'a domain name').toLowerCase(),
  },
  IMAP_URL: {
    fallback: 'unset',
    meaning: 'sign in against this IMAP server, e.g. imap://mail.example.com:143 or imaps://mail.example.com:993',
    read: (s, name) => s.matching(name, '', /^(imaps?:\/\/[^\s/]+\/?)?$/i, 'imap://host[:port] or imaps://host[:port]') || undefined,
  },
  SMTP_URL: {
    fallback: 'unset',
    meaning: 'with IMAP_URL: submission as the user, e.g. smtp://mail.example.com:587; without: relay for other domains',
    read: unchecked,
  },
  WEBMAIL_DES_KEY: { fallback: '<DATA_DIR>/webmail-des-key', meaning: 'key that seals IMAP passwords in sessions', read: unchecked },
  // Its default lies in DATA_DIR, which the loader is given.
  LOG_DIR: { fallback: '<DATA_DIR>/logs', meaning: 'where errors.log and userlogins.log are written', read: unchecked },
  WEBMAIL_IDLE_MINUTES: { fallback: '10', meaning: 'a session unused this long is gone', read: (s, name) => s.positive(name, 10) },
  WEBMAIL_REFRESH_SECONDS: { fallback: '60', meaning: 'how often an open folder asks for new mail', read: (s, name) => s.positive(name, 60) },
  WEBMAIL_LOGIN_RATE_LIMIT: {
    fallback: '3',
    meaning: 'failed webmail logins per login name (known or not) within 60 s before its logins are refused (0: off)',
    read: (s, name) => s.integer(name, 3, 0, 1_000_000),
  },
} satisfies SettingTable;

/** The webmail's settings (docs/webmail.md), read like every other process setting. */
export function loadWebmailConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): WebmailConfig {
  const read = settingReader(WEBMAIL_SETTING_TABLE, env);
  return {
    mailDomain: read('MAIL_DOMAIN'),
    smtpUrl: read('SMTP_URL'),
    imapUrl: read('IMAP_URL'),
    desKey: read('WEBMAIL_DES_KEY'),
    logDir: resolve(read('LOG_DIR') ?? join(dataDir, 'logs')),
    idleMillis: read('WEBMAIL_IDLE_MINUTES') * 60_000,
    refreshSeconds: read('WEBMAIL_REFRESH_SECONDS'),
    loginRateLimit: read('WEBMAIL_LOGIN_RATE_LIMIT'),
    loginRateWindowMillis: 60_000,
  };
}
