import type { Notice } from './pages/layout.ts';
import { loginPage } from './pages/login-page.ts';
import { sendPage } from './responses.ts';
import { setSessionCookie } from './sessions/session-cookies.ts';
import type { SessionStore } from './sessions/session-store.ts';
import type { WebmailRequest } from './webmail-request.ts';

/**
 * Shows the login form in a session that is not logged in. After a failed login or a logout the old
 * session is dropped and the form gets a fresh one (Roundcube's kill_session); otherwise an anonymous
 * session is kept, so two open login tabs both stay valid.
 */
export async function showLoginScreen(
  request: WebmailRequest,
  sessions: SessionStore,
  mailDomain: string,
  status: number,
  options: { readonly notice?: Notice | undefined; readonly keepAnonymousSession?: boolean; readonly user?: string } = {},
): Promise<void> {
  const reusable = options.keepAnonymousSession === true && request.session !== null && request.session.accountId === null;
  if (reusable) {
    await sessions.markLoginPageShown(request.session!.id);
  } else {
    if (request.session) await sessions.destroy(request.session.id);
    request.session = await sessions.create(true);
    setSessionCookie(request.ctx, request.session.id);
  }
  const session = request.session!;
  sendPage(request.ctx, status, loginPage(session.requestToken, mailDomain, options.notice, options.user));
}
