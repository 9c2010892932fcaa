import { MailboxUnavailable, type MailIdentity } from '../mail/mailbox.ts';
import { LoginError, type LoginErrorCode } from '../logs/login-log.ts';
import { showLoginScreen } from '../login-screen.ts';
import { loginPage } from '../pages/login-page.ts';
import { redirect, sendPage } from '../responses.ts';
import { setAuthCookie, setSessionCookie } from '../sessions/session-cookies.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { recordSignIn } from './sign-in-facts.ts';
import { clientAddress, input, loggedRequest, type WebmailRequest } from '../webmail-request.ts';

const MAX_INPUT = 1024;
/** Roundcube sleeps this long after a wrong password or an unknown user, to slow guessing (#1490549). */
export const FAILED_LOGIN_PAUSE_MS = 1000;
const MESSAGES: Record<LoginErrorCode, string> = {
  [LoginError.failed]: TEXTS.loginFailed,
  [LoginError.invalidRequest]: TEXTS.invalidRequest,
  [LoginError.rateLimited]: TEXTS.accountLocked,
};

/**
 * Logs the failure under the session id the browser holds after this answer: a session made by this very
 * request (no cookie came) is kept for the login form, so the log and the cookie name the same session.
 */
async function refuse(services: WebmailServices, request: WebmailRequest, user: string, code: LoginErrorCode): Promise<void> {
  services.logins.failed(user, clientAddress(request), request.session!.id, code);
  const notice = { type: 'warning', text: MESSAGES[code] } as const;
  // A forged login POST must not end a session that is logged in (CVE-2020-12626).
  if (request.session?.accountId) {
    sendPage(request.ctx, 401, loginPage(request.session.requestToken, services.config.mailDomain, notice, user));
    return;
  }
  await showLoginScreen(request, services.sessions, services.config.mailDomain, 401, { notice, keepAnonymousSession: !request.hadSessionCookie, user });
}

/** POST ?_task=login&_action=login with `_user`, `_pass`, `_token`. */
export async function loginAction(services: WebmailServices, request: WebmailRequest): Promise<void> {
  if (!request.session) {
    request.session = await services.sessions.create(false);
    setSessionCookie(request.ctx, request.session.id);
  }
  const user = (input(request, '_user', 'POST') ?? '').trim();
  const password = input(request, '_pass', 'POST') ?? '';
  if (!services.security.checkLogin(request) || user.length > MAX_INPUT || password.length > MAX_INPUT) {
    return refuse(services, request, user, LoginError.invalidRequest);
  }
  const limitKey = await services.mailboxes.rateLimitKey(user);
  if (limitKey && (await services.rateLimit.isLocked(limitKey))) return refuse(services, request, user, LoginError.rateLimited);
  let identity: MailIdentity | null;
  try {
    identity = await services.mailboxes.authenticate(user, password);
  } catch (error) {
    if (!(error instanceof MailboxUnavailable)) throw error;
    // The server's outage is not the user's failure: no login-log line for fail2ban, no count.
    services.errors.raise(loggedRequest(request), `Login failed for ${user} from ${clientAddress(request)}: ${error.message}`, error.logType);
    const notice = { type: 'error', text: TEXTS.storageFailed } as const;
    return showLoginScreen(request, services.sessions, services.config.mailDomain, 503, { notice, keepAnonymousSession: !request.hadSessionCookie, user });
  }
  if (!identity) {
    // Only failures the lock counts are recorded: once it locks the name, refusals write nothing, so
    // an attacker's guesses add at most WEBMAIL_LOGIN_RATE_LIMIT events per account and window. Unknown
    // names are counted and locked alike (Roundcube locks only users it knows, which tells who exists).
    if (limitKey) {
      await services.rateLimit.recordFailure(limitKey);
      const accountId = await services.mailboxes.knownAccountId(user);
      if (accountId) await recordSignIn(services, request, 'failed', accountId, user);
    }
    // A timer, not a sleep: other requests go on meanwhile.
    await services.pause(FAILED_LOGIN_PAUSE_MS);
    return refuse(services, request, user, LoginError.failed);
  }
  if (limitKey) await services.rateLimit.forget(limitKey);
  // Recorded before the session exists: when the log refuses, the login fails and nobody is signed in.
  await recordSignIn(services, request, 'succeeded', identity.accountId, identity.username);
  const session = await services.sessions.logIn(request.session.id, identity.accountId, identity.username, identity.secret);
  request.session = session;
  setSessionCookie(request.ctx, session.id);
  setAuthCookie(request.ctx, session.authSecret);
  services.logins.succeeded(user, identity.accountId, clientAddress(request), session.id);
  redirect(request.ctx, '/webmail/?_task=mail&_mbox=INBOX');
}
