import type { AccountLog } from '../accounts/account-log.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { ComposeStore } from './sessions/compose-store.ts';
import type { ErrorLog } from './logs/error-log.ts';
import type { LoginLog } from './logs/login-log.ts';
import type { LoginRateLimit } from './sessions/login-rate-limit.ts';
import type { MailboxProvider } from './mail/mailbox.ts';
import type { RequestSecurity } from './request-check.ts';
import type { SessionStore } from './sessions/session-store.ts';
import type { WebmailConfig } from './webmail-config.ts';

/** Everything the webmail's actions use, built once by createWebmail. */
export type WebmailServices = {
  readonly config: WebmailConfig;
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly compose: ComposeStore;
  /** The local accounts' mailboxes, or the IMAP server's when IMAP_URL is set. */
  readonly mailboxes: MailboxProvider;
  readonly security: RequestSecurity;
  readonly errors: ErrorLog;
  readonly logins: LoginLog;
  readonly rateLimit: LoginRateLimit;
  /** Waits without blocking the process (the failed-login pause); tests replace it. */
  readonly pause: (ms: number) => Promise<void>;
  /** Records the local accounts' sign-ins in their streams; null: not recorded. */
  readonly accountLog: AccountLog | null;
};
