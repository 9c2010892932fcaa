import type { Middleware } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import { ComposeStore } from './sessions/compose-store.ts';
import { ErrorLog } from './logs/error-log.ts';
import { timerPause } from './sessions/failed-login-pause.ts';
import { LoginLog } from './logs/login-log.ts';
import { LoginRateLimit } from './sessions/login-rate-limit.ts';
import { MailSender } from './mail/mail-sender.ts';
import { createSmtpRelay } from './mail/smtp-relay.ts';
import { SqliteMailStore } from './mail/sqlite-mail-store.ts';
import { RequestSecurity } from './request-check.ts';
import { SessionStore } from './sessions/session-store.ts';
import { openSessionDatabase } from './sessions/sqlite-sessions-schema.ts';
import { StaticAssets } from './static-assets.ts';
import { loadWebmailConfig, type WebmailConfig } from './webmail-config.ts';
import { webmailMiddleware } from './webmail-middleware.ts';

export type WebmailDeps = {
  readonly accounts: AccountStore;
  readonly dataDir: string;
  /** MAIL_DOMAIN, SMTP_URL, LOG_DIR, WEBMAIL_IDLE_MINUTES, WEBMAIL_REFRESH_SECONDS, WEBMAIL_LOGIN_RATE_LIMIT */
  readonly env?: NodeJS.ProcessEnv;
  /** How the failed-login pause waits; a timer unless a test needs to hold it. */
  readonly pause?: (ms: number) => Promise<void>;
};

export type Webmail = {
  /** Handles `/webmail` and everything under `/webmail/`; calls `next()` for any other path. */
  readonly middleware: Middleware;
  readonly config: WebmailConfig;
  close(): Promise<void>;
};

/**
 * The webmail under /webmail/: mail in `<dataDir>/mail.sqlite`, sessions in
 * `<dataDir>/webmail-sessions.sqlite`, logs in LOG_DIR (default `<dataDir>/logs`). The account store
 * belongs to the caller and is not closed here.
 */
export function createWebmail(deps: WebmailDeps): Webmail {
  const config = loadWebmailConfig(deps.dataDir, deps.env ?? process.env);
  const sessionDb = openSessionDatabase(deps.dataDir);
  const mail = SqliteMailStore.inDataDir(deps.dataDir);
  const relay = config.smtpUrl ? createSmtpRelay(config.smtpUrl) : null;
  const errors = new ErrorLog(config.logDir);
  const sessions = new SessionStore(sessionDb, config.idleMillis);
  const services = {
    config,
    accounts: deps.accounts,
    sessions,
    compose: new ComposeStore(sessionDb),
    mail,
    sender: new MailSender({ accounts: deps.accounts, mail, mailDomain: config.mailDomain, relay }),
    security: new RequestSecurity(errors),
    errors,
    logins: new LoginLog(config.logDir),
    rateLimit: new LoginRateLimit(config.loginRateLimit, config.loginRateWindowMillis),
    pause: deps.pause ?? timerPause,
  };
  return {
    middleware: webmailMiddleware(services, new StaticAssets()),
    config,
    async close() {
      relay?.close();
      mail.close();
      sessionDb.close();
    },
  };
}
