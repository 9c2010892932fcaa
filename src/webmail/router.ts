import { AjaxResponse } from './ajax-response.ts';
import { autocompleteAction } from './actions/autocomplete-action.ts';
import { composeAction } from './actions/compose-action.ts';
import { loginAction } from './actions/login-action.ts';
import { logoutAction } from './actions/logout-action.ts';
import { listAction, previewAction, showAction } from './actions/mailbox-actions.ts';
import { deleteAction, moveAction } from './actions/selection-actions.ts';
import { markAction } from './actions/mark-action.ts';
import { refreshAction } from './actions/refresh-action.ts';
import { removeAttachmentAction } from './actions/remove-attachment-action.ts';
import { uploadAction } from './actions/upload-action.ts';
import { sendAction } from './actions/send-action.ts';
import { unauthenticated } from './actions/unauthenticated.ts';
import { viewSourceAction } from './actions/view-source-action.ts';
import type { LoggedInSession } from './actions/logged-in-session.ts';
import { MailboxUnavailable, type Mailbox } from './mail/mailbox.ts';
import { errorPage } from './pages/error-page.ts';
import { TEXTS } from './pages/ui-texts.ts';
import { redirect, sendForbidden, sendPage } from './responses.ts';
import type { ResolvedSession } from './sessions/session-resolver.ts';
import type { WebmailServices } from './webmail-dependencies.ts';
import { loggedRequest, type WebmailRequest } from './webmail-request.ts';

type MailAction = (services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox) => void | Promise<void>;

/** The mail task's actions and the method each answers to. */
const MAIL_ACTIONS: Record<string, { readonly method: 'GET' | 'POST'; readonly run: MailAction }> = {
  '': { method: 'GET', run: listAction },
  list: { method: 'GET', run: listAction },
  show: { method: 'GET', run: showAction },
  preview: { method: 'GET', run: previewAction },
  viewsource: { method: 'GET', run: viewSourceAction },
  compose: { method: 'GET', run: composeAction },
  send: { method: 'POST', run: sendAction },
  autocomplete: { method: 'POST', run: autocompleteAction },
  refresh: { method: 'POST', run: refreshAction },
  delete: { method: 'POST', run: deleteAction },
  move: { method: 'POST', run: moveAction },
  mark: { method: 'POST', run: markAction },
};

function notFound(request: WebmailRequest): void {
  sendPage(
    request.ctx,
    404,
    errorPage({ title: 'Invalid request', lines: ['The requested action does not exist.'], link: { href: '/webmail/', text: 'Go to the mailbox' } }),
  );
}

/**
 * Roundcube's front controller, in its order: login and logout first; then anything else needs a
 * logged-in session; then every POST must pass the request check before its action runs.
 */
export async function routeRequest(services: WebmailServices, request: WebmailRequest, resolved: ResolvedSession): Promise<void> {
  const { loggedIn } = resolved;
  if (request.task === 'login' && request.action === 'login' && request.method === 'POST') return loginAction(services, request);
  if (request.task === 'logout') return logoutAction(services, request, loggedIn !== null);
  if (!loggedIn) return unauthenticated(services, request, resolved.sessionLost);
  // A multipart body is read by the upload itself, which checks the token (header or first field) before keeping a byte.
  if (request.task === 'mail' && request.action === 'upload' && request.method === 'POST') return uploadAction(services, request, loggedIn);
  if (request.method === 'POST' && !services.security.check(request, 'POST')) return sendForbidden(request);
  if (request.task === 'login') return redirect(request.ctx, '/webmail/?_task=mail');
  if (request.task !== 'mail') return notFound(request);
  // keep-alive only touches the session: it must not cost an IMAP login.
  if (request.action === 'keep-alive' && request.method !== 'POST') return new AjaxResponse('keep-alive').send(request.ctx);
  // The compose ID's files are the session's: no mailbox is opened (over IMAP that is a login) for them.
  if (request.action === 'remove-attachment' && request.method === 'POST') return removeAttachmentAction(services, request, loggedIn);
  const action = MAIL_ACTIONS[request.action];
  if (!action || (action.method === 'POST') !== (request.method === 'POST')) return notFound(request);
  try {
    const mailbox = await services.mailboxes.open({ accountId: loggedIn.accountId, username: loggedIn.username, secret: loggedIn.mailSecret });
    try {
      await action.run(services, request, loggedIn, mailbox);
    } finally {
      await mailbox.close();
    }
  } catch (error) {
    if (!(error instanceof MailboxUnavailable)) throw error;
    storageFailed(services, request, error);
  }
}

/** Roundcube's answer when its storage server fails: a logged "IMAP Error", and an error box, not a 500. */
function storageFailed(services: WebmailServices, request: WebmailRequest, error: MailboxUnavailable): void {
  services.errors.raise(loggedRequest(request), error.message, error.logType);
  if (request.isAjax) return new AjaxResponse(request.action).command('display_message', TEXTS.storageFailed, 'error', 0).send(request.ctx, 503);
  const page = errorPage({
    title: 'Service currently not available',
    lines: [TEXTS.storageFailed, 'Please try again in a moment.'],
    link: { href: '/webmail/?_task=mail', text: 'Try again' },
  });
  sendPage(request.ctx, 503, page);
}
