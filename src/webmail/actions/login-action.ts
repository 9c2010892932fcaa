import type { Account } from '../../accounts/account-store.ts';
import { verifyAgainstNothing, verifyPassword } from '../../accounts/passwords.ts';
import { LoginError, type LoginErrorCode } from '../logs/login-log.ts';
import { showLoginScreen } from '../login-screen.ts';
import { loginPage } from '../pages/login-page.ts';
import { redirect, sendPage } from '../responses.ts';
import { setAuthCookie, setSessionCookie } from '../sessions/session-cookies.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { clientAddress, input, type WebmailRequest } from '../webmail-request.ts';

const MAX_INPUT = 1024;
/** Roundcube sleeps this long after a wrong password or an unknown user, to slow guessing (#1490549). */
export const FAILED_LOGIN_PAUSE_MS = 1000;
const MESSAGES: Record<LoginErrorCode, string> = {
  [LoginError.failed]: TEXTS.loginFailed,
  [LoginError.invalidRequest]: TEXTS.invalidRequest,
  [LoginError.rateLimited]: TEXTS.accountLocked,
};

/** `alice` or `alice@<MAIL_DOMAIN>` names a local account; ids and other domains name none. */
async function findLoginAccount(services: WebmailServices, user: string): Promise<Account | null> {
  const suffix = `@${services.config.mailDomain}`;
  const name = user.toLowerCase().endsWith(suffix) ? user.slice(0, -suffix.length) : user;
  if (name === '' || name.includes('@')) return null;
  const account = await services.accounts.findAccount(name);
  return account?.username.toLowerCase() === name.toLowerCase() ? account : null;
}

/**
 * Logs the failure under the session id the browser holds after this answer: a session made by this very
 * request (no cookie came) is kept for the login form, so the log and the cookie name the same session.
 */
async function refuse(services: WebmailServices, request: WebmailRequest, user: string, code: LoginErrorCode): Promise<void> {
  services.logins.failed(user, clientAddress(request), request.session!.id, code);
  const notice = { type: 'warning', text: MESSAGES[code] } as const;
  // A forged login POST must not end a session that is logged in (CVE-2020-12626).
  if (request.session?.accountId) {
    sendPage(request.ctx, 401, loginPage(request.session.requestToken, services.config.mailDomain, notice));
    return;
  }
  await showLoginScreen(request, services.sessions, services.config.mailDomain, 401, { notice, keepAnonymousSession: !request.hadSessionCookie });
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
  const account = await findLoginAccount(services, user);
  if (account && (await services.rateLimit.isLocked(account.id))) return refuse(services, request, user, LoginError.rateLimited);
  const hash = account ? await services.accounts.passwordHash(account.id) : null;
  const valid = hash ? await verifyPassword(password, hash) : await verifyAgainstNothing(password);
  if (!account || !valid) {
    if (account) await services.rateLimit.recordFailure(account.id);
    // A timer, not a sleep: other requests go on meanwhile.
    await services.pause(FAILED_LOGIN_PAUSE_MS);
    return refuse(services, request, user, LoginError.failed);
  }
  await services.rateLimit.forget(account.id);
  const session = await services.sessions.logIn(request.session.id, account.id, account.username);
  request.session = session;
  setSessionCookie(request.ctx, session.id);
  setAuthCookie(request.ctx, session.authSecret!);
  services.logins.succeeded(user, account.id, clientAddress(request), session.id);
  redirect(request.ctx, '/webmail/?_task=mail&_mbox=INBOX');
}
