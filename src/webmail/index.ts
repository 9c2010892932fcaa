import type { Middleware } from 'koa';
import type { AccountLog } from '../accounts/account-log.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { ErrorLog } from './logs/error-log.ts';
import { timerPause } from './sessions/failed-login-pause.ts';
import { LoginLog } from './logs/login-log.ts';
import { CredentialSealer } from './mail/credential-sealer.ts';
import { ImapMailboxes } from './mail/imap-mailboxes.ts';
import { LocalMailboxes } from './mail/local-mailbox.ts';
import { MailSender } from './mail/mail-sender.ts';
import type { MailboxProvider } from './mail/mailbox.ts';
import { createSmtpRelay } from './mail/smtp-relay.ts';
import { RequestSecurity } from './request-check.ts';
import { StaticAssets } from './static-assets.ts';
import { loadWebmailConfig, type WebmailConfig } from './webmail-config.ts';
import { webmailMiddleware } from './webmail-middleware.ts';
import { openWebmailStores, type WebmailStores } from './webmail-stores.ts';

export type WebmailDeps = {
  readonly accounts: AccountStore;
  /** Where the local accounts' sign-ins are recorded (the account's story); none: not recorded. */
  readonly accountLog?: AccountLog;
  readonly dataDir: string;
  /** When set, sessions, compose IDs, login counters and mail live in MongoDB instead of DATA_DIR. */
  readonly mongodbUrl?: string | undefined;
  /** A database other than the URL's (tests). */
  readonly mongoDatabase?: string | undefined;
  /** MAIL_DOMAIN, SMTP_URL, IMAP_URL, WEBMAIL_DES_KEY, LOG_DIR, WEBMAIL_IDLE_MINUTES, WEBMAIL_REFRESH_SECONDS, WEBMAIL_LOGIN_RATE_LIMIT */
  readonly env?: NodeJS.ProcessEnv;
  /** Opened by the caller (the process's composition root), which then closes them; else opened and closed here. */
  readonly stores?: WebmailStores;
  /** How the failed-login pause waits; a timer unless a test needs to hold it. */
  readonly pause?: (ms: number) => Promise<void>;
  /** The clock sessions and login counters expire by; the system clock unless a test moves it. */
  readonly now?: () => number;
};

export type Webmail = {
  /** Handles `/webmail` and everything under `/webmail/`; calls `next()` for any other path. */
  readonly middleware: Middleware;
  readonly config: WebmailConfig;
  close(): Promise<void>;
};

/**
 * The webmail under /webmail/: its state in the stores openWebmailStores picks (DATA_DIR or MongoDB),
 * logs in LOG_DIR (default `<dataDir>/logs`). The account store belongs to the caller and is not closed here.
 */
export async function createWebmail(deps: WebmailDeps): Promise<Webmail> {
  const config = loadWebmailConfig(deps.dataDir, deps.env ?? process.env);
  const stores =
    deps.stores ??
    (await openWebmailStores({
      dataDir: deps.dataDir,
      mongodbUrl: deps.mongodbUrl,
      mongoDatabase: deps.mongoDatabase,
      idleMillis: config.idleMillis,
      now: deps.now,
      rateLimit: { limit: config.loginRateLimit, windowMillis: config.loginRateWindowMillis },
    }));
  // With IMAP_URL, SMTP_URL is each user's submission server, not the local store's relay.
  const relay = config.smtpUrl && !config.imapUrl ? createSmtpRelay(config.smtpUrl) : null;
  const mailboxes: MailboxProvider = config.imapUrl
    ? new ImapMailboxes({
        imapUrl: config.imapUrl,
        smtpUrl: config.smtpUrl,
        mailDomain: config.mailDomain,
        sealer: CredentialSealer.fromSetting(config.desKey, deps.dataDir),
      })
    : new LocalMailboxes({
        accounts: deps.accounts,
        mail: stores.mail,
        sender: new MailSender({ accounts: deps.accounts, mail: stores.mail, mailDomain: config.mailDomain, relay }),
        mailDomain: config.mailDomain,
      });
  const errors = new ErrorLog(config.logDir);
  const services = {
    config,
    accounts: deps.accounts,
    sessions: stores.sessions,
    compose: stores.compose,
    mailboxes,
    security: new RequestSecurity(errors),
    errors,
    logins: new LoginLog(config.logDir),
    rateLimit: stores.rateLimit,
    pause: deps.pause ?? timerPause,
    accountLog: deps.accountLog ?? null,
  };
  return {
    middleware: webmailMiddleware(services, new StaticAssets()),
    config,
    async close() {
      relay?.close();
      await mailboxes.close();
      if (!deps.stores) await stores.close();
    },
  };
}
