import type { Middleware } from 'koa';
import { join } from 'node:path';
import type { AccountStore } from '../../accounts/account-store.ts';
import { openSqlite } from '../../shared/sqlite.ts';
import { ComposeStore } from './compose-store.ts';
import { ErrorLog } from './error-log.ts';
import { LoginLog } from './login-log.ts';
import { LoginRateLimit } from './login-rate-limit.ts';
import { MailSender } from './mail/mail-sender.ts';
import { createSmtpRelay } from './mail/smtp-relay.ts';
import { SqliteMailStore } from './mail/sqlite-mail-store.ts';
import { RequestSecurity } from './security.ts';
import { SessionStore } from './session-store.ts';
import { StaticAssets } from './static-assets.ts';
import { loadWebmailConfig, type WebmailConfig } from './webmail-config.ts';
import { webmailMiddleware } from './webmail-middleware.ts';

export type WebmailDeps = {
  readonly accounts: AccountStore;
  readonly dataDir: string;
  /** MAIL_DOMAIN, SMTP_URL, LOG_DIR, WEBMAIL_IDLE_MINUTES, WEBMAIL_REFRESH_SECONDS, WEBMAIL_LOGIN_RATE_LIMIT */
  readonly env?: NodeJS.ProcessEnv;
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
  const sessionDb = openSqlite(join(deps.dataDir, 'webmail-sessions.sqlite'));
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
