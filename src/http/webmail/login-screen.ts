import type { Notice } from './pages/layout.ts';
import { loginPage } from './pages/login-page.ts';
import { sendPage } from './responses.ts';
import { setSessionCookie } from './session-cookies.ts';
import type { SessionStore } from './session-store.ts';
import type { WebmailRequest } from './webmail-request.ts';

/**
 * Shows the login form in a session that is not logged in: the old anonymous session (if any) is
 * dropped and a fresh one marked "login page shown" takes its place, so every form carries a new token.
 */
export function showLoginScreen(
  request: WebmailRequest,
  sessions: SessionStore,
  mailDomain: string,
  status: number,
  notice?: Notice,
): void {
  if (request.session) sessions.destroy(request.session.id);
  const session = sessions.create(true);
  request.session = session;
  setSessionCookie(request.ctx, session.id);
  sendPage(request.ctx, status, loginPage(session.requestToken, mailDomain, notice));
}
