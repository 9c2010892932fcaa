import { showLoginScreen } from '../login-screen.ts';
import { sendForbidden } from '../responses.ts';
import { clearAuthCookie } from '../sessions/session-cookies.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import type { WebmailRequest } from '../webmail-request.ts';

/**
 * GET ?_task=logout&_token=<request token> (the token may also come in a POST body or the XHR header).
 * A wrong or missing token changes nothing: the user stays logged in and sees the 403 page.
 */
export async function logoutAction(services: WebmailServices, request: WebmailRequest, loggedIn: boolean): Promise<void> {
  if (!loggedIn) return showLoginScreen(request, services.sessions, services.config.mailDomain, 200, { keepAnonymousSession: true });
  if (!services.security.check(request, 'GET_POST')) return sendForbidden(request);
  clearAuthCookie(request.ctx);
  await showLoginScreen(request, services.sessions, services.config.mailDomain, 200, { notice: { type: 'notice', text: TEXTS.loggedOut } });
}
