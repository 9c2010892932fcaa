import type { Account } from '../../../accounts/account-store.ts';
import { verifyAgainstNothing, verifyPassword } from '../../../accounts/passwords.ts';
import { LoginError, type LoginErrorCode } from '../login-log.ts';
import { showLoginScreen } from '../login-screen.ts';
import { loginPage } from '../pages/login-page.ts';
import { redirect, sendPage } from '../responses.ts';
import { setAuthCookie, setSessionCookie } from '../session-cookies.ts';
import type { WebmailServices } from '../services.ts';
import { TEXTS } from '../texts.ts';
import { clientAddress, input, type WebmailRequest } from '../webmail-request.ts';

const MAX_INPUT = 1024;
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

function refuse(services: WebmailServices, request: WebmailRequest, user: string, code: LoginErrorCode): void {
  services.logins.failed(user, clientAddress(request), request.session!.id, code);
  const notice = { type: 'warning', text: MESSAGES[code] } as const;
  // A forged login POST must not end a session that is logged in (CVE-2020-12626).
  if (request.session?.accountId) {
    sendPage(request.ctx, 401, loginPage(request.session.requestToken, services.config.mailDomain, notice));
    return;
  }
  showLoginScreen(request, services.sessions, services.config.mailDomain, 401, { notice });
}

/** POST ?_task=login&_action=login with `_user`, `_pass`, `_token`. */
export async function loginAction(services: WebmailServices, request: WebmailRequest): Promise<void> {
  if (!request.session) {
    request.session = services.sessions.create(false);
    setSessionCookie(request.ctx, request.session.id);
  }
  const user = (input(request, '_user', 'POST') ?? '').trim();
  const password = input(request, '_pass', 'POST') ?? '';
  if (!services.security.checkLogin(request) || user.length > MAX_INPUT || password.length > MAX_INPUT) {
    return refuse(services, request, user, LoginError.invalidRequest);
  }
  const account = await findLoginAccount(services, user);
  if (account && services.rateLimit.isLocked(account.id)) return refuse(services, request, user, LoginError.rateLimited);
  const hash = account ? await services.accounts.passwordHash(account.id) : null;
  const valid = hash ? await verifyPassword(password, hash) : await verifyAgainstNothing(password);
  if (!account || !valid) {
    if (account) services.rateLimit.recordFailure(account.id);
    return refuse(services, request, user, LoginError.failed);
  }
  services.rateLimit.forget(account.id);
  const session = services.sessions.logIn(request.session.id, account.id, account.username);
  request.session = session;
  setSessionCookie(request.ctx, session.id);
  setAuthCookie(request.ctx, session.authSecret!);
  services.logins.succeeded(user, account.id, clientAddress(request), session.id);
  redirect(request.ctx, '/webmail/?_task=mail&_mbox=INBOX');
}
