import { AjaxResponse, unlockId } from '../ajax-response.ts';
import { errorPage } from '../pages/error-page.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { LoggedInSession } from './logged-in-session.ts';

/**
 * POST ?_task=mail&_action=remove-attachment with `_id` (the compose ID) and `_file=rcmfile<id>`, the request
 * token checked by the router (Roundcube's attachment_delete.php). The XHR gets `remove_from_attachment_list`;
 * the form without script goes back to the compose page. A file that is not (or no longer) there is a 404.
 */
export async function removeAttachmentAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const composeId = input(request, '_id', 'POST') ?? '';
  const file = input(request, '_file', 'POST') ?? '';
  const attachmentId = /^rcmfile([0-9a-f]{16})$/.exec(file)?.[1];
  const removed = attachmentId !== undefined && (await services.compose.detach(session.id, composeId, attachmentId));
  const response = new AjaxResponse('remove-attachment', unlockId(input(request, '_unlock')));
  if (!request.isAjax) {
    if (!removed) return sendPage(request.ctx, 404, errorPage({ title: 'Not found', lines: [TEXTS.invalidRequest] }));
    request.ctx.status = 303;
    request.ctx.set('Location', `/webmail/?_task=mail&_action=compose&_id=${encodeURIComponent(composeId)}`);
    return;
  }
  if (!removed) return response.command('display_message', TEXTS.invalidRequest, 'error', 0).send(request.ctx, 404);
  response.command('remove_from_attachment_list', file).send(request.ctx);
}
