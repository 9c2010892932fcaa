import { AjaxResponse, unlockId } from '../ajax-response.ts';
import { showLoginScreen } from '../login-screen.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';

/**
 * A request that needs a login without one (never logged in, expired, or a bad auth cookie). Nothing is
 * logged: an XHR gets Roundcube's JSON session error, a page the login form, with a warning when the
 * browser still held a session that has gone.
 */
export async function unauthenticated(services: WebmailServices, request: WebmailRequest, sessionLost: boolean): Promise<void> {
  if (request.isAjax) {
    new AjaxResponse(request.action || 'refresh', unlockId(input(request, '_unlock')))
      .command('display_message', TEXTS.sessionError, 'error', -1000)
      .command('session_error', '/webmail/?_task=login&_err=session')
      .send(request.ctx);
    return;
  }
  const showError = sessionLost || input(request, '_err', 'GET') === 'session';
  await showLoginScreen(request, services.sessions, services.config.mailDomain, 200, {
    notice: showError ? { type: 'warning', text: TEXTS.sessionError } : undefined,
    keepAnonymousSession: true,
  });
}
