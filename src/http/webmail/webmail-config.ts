import { join, resolve } from 'node:path';

/** Settings read from the environment; every one has a default that works without configuration. */
export interface WebmailConfig {
  /** Addresses are `<username>@<mailDomain>`; mail to this domain is delivered locally. */
  readonly mailDomain: string;
  /** Relay for other domains, e.g. `smtp://user:pass@mail.example.com:587`; unset refuses them. */
  readonly smtpUrl: string | undefined;
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

function optional(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function positiveNumber(value: string | undefined, fallback: number, name: string): number {
  const text = optional(value);
  if (text === undefined) return fallback;
  const number = Number(text);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number, got ${text}`);
  return number;
}

function wholeNumber(value: string | undefined, fallback: number, name: string): number {
  const text = optional(value);
  if (text === undefined) return fallback;
  const number = Number(text);
  if (!Number.isInteger(number) || number < 0) throw new Error(`${name} must be a whole number, got ${text}`);
  return number;
}

export function loadWebmailConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): WebmailConfig {
  const mailDomain = (optional(env.MAIL_DOMAIN) ?? 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(mailDomain)) throw new Error(`MAIL_DOMAIN is not a domain name: ${mailDomain}`);
  return {
    mailDomain,
    smtpUrl: optional(env.SMTP_URL),
    logDir: resolve(optional(env.LOG_DIR) ?? join(dataDir, 'logs')),
    idleMillis: positiveNumber(env.WEBMAIL_IDLE_MINUTES, 10, 'WEBMAIL_IDLE_MINUTES') * 60_000,
    refreshSeconds: positiveNumber(env.WEBMAIL_REFRESH_SECONDS, 60, 'WEBMAIL_REFRESH_SECONDS'),
    loginRateLimit: wholeNumber(env.WEBMAIL_LOGIN_RATE_LIMIT, 3, 'WEBMAIL_LOGIN_RATE_LIMIT'),
    loginRateWindowMillis: 60_000,
  };
}
