import { join } from 'node:path';
import { Settings } from '../shared/settings.ts';

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

/** The webmail's settings (docs/webmail.md), read like every other process setting. */
export function loadWebmailConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): WebmailConfig {
  const settings = new Settings(env);
  return {
    mailDomain: settings.matching('MAIL_DOMAIN', 'localhost', /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, 'a domain name').toLowerCase(),
    smtpUrl: settings.optional('SMTP_URL'),
    imapUrl: settings.matching('IMAP_URL', '', /^(imaps?:\/\/[^\s/]+\/?)?$/i, 'imap://host[:port] or imaps://host[:port]') || undefined,
    desKey: settings.optional('WEBMAIL_DES_KEY'),
    logDir: settings.path('LOG_DIR', join(dataDir, 'logs')),
    idleMillis: settings.positive('WEBMAIL_IDLE_MINUTES', 10) * 60_000,
    refreshSeconds: settings.positive('WEBMAIL_REFRESH_SECONDS', 60),
    loginRateLimit: settings.integer('WEBMAIL_LOGIN_RATE_LIMIT', 3, 0, 1_000_000),
    loginRateWindowMillis: 60_000,
  };
}
