import { AjaxResponse, unlockId } from '../ajax-response.ts';
import { isMark, type Mailbox } from '../mail/mailbox.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import { folderParameter, uidParameter } from './mailbox-actions.ts';
import type { LoggedInSession } from './logged-in-session.ts';

/**
 * POST ?_task=mail&_action=mark with `_uid`, `_flag` (read, unread, flagged, unflagged), `_mbox` and the
 * request token (checked by the router), as Roundcube's mark.php: the flag is stored on the server (IMAP
 * \Seen, \Flagged; the local store's entry). A read or unread change answers the folder's new unread count.
 * A message that is not there is Roundcube's "errormarking" message; a malformed request is a 400.
 */
export async function markAction(_services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const response = new AjaxResponse('mark', unlockId(input(request, '_unlock')));
  const uid = uidParameter(request);
  const flag = input(request, '_flag', 'POST');
  if (uid === null || !isMark(flag)) return response.command('display_message', TEXTS.invalidRequest, 'error', 0).send(request.ctx, 400);
  const folder = folderParameter(request, await mailbox.folders());
  if (!(await mailbox.mark(folder.path, uid, flag))) return response.command('display_message', TEXTS.markFailed, 'error', 0).send(request.ctx);
  if (flag === 'read' || flag === 'unread') response.command('set_unread_count', folder.path, await mailbox.unreadCount(folder.path), folder.role === 'inbox');
  response.command('set_message_flag', uid, flag).send(request.ctx);
}
