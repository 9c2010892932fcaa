import { AjaxResponse, unlockId } from '../ajax-response.ts';
import type { MessageHeader } from '../mail/mail-store.ts';
import { correspondentOf, shortDate } from '../pages/message-list-page.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import { PAGE_SIZE, folderParameter } from './mailbox-actions.ts';
import type { LoggedInSession } from './logged-in-session.ts';

const row = (message: MessageHeader) => ({
  cols: { fromto: correspondentOf(message), subject: message.subject, date: shortDate(message.date), datetime: message.date },
  flags: { seen: message.seen, mbox: message.folder },
});

/**
 * POST ?_task=mail&_action=refresh, sent by an open mailbox every refresh interval. With `_folderlist=1`
 * it answers the unread counts; with `_list=1` also the rows that arrived after the highest of `_uids`
 * (oldest first, each to be put at the top). Without either it does nothing, like Roundcube.
 */
export async function refreshAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const response = new AjaxResponse('refresh', unlockId(input(request, '_unlock')));
  const wantsList = input(request, '_list', 'POST') === '1';
  if (wantsList || input(request, '_folderlist', 'POST') === '1') {
    const folder = folderParameter(request);
    const shown = (input(request, '_uids', 'POST') ?? '')
      .split(',', 1000)
      .map(Number)
      .filter((uid) => Number.isSafeInteger(uid));
    const newer = wantsList ? await services.mail.listNewerThan(session.accountId, folder, Math.max(0, ...shown), PAGE_SIZE) : [];
    const inboxNews = folder === 'INBOX' && newer.some((message) => !message.seen);
    response.command('set_unread_count', 'INBOX', await services.mail.unreadCount(session.accountId, 'INBOX'), true, inboxNews ? 'recent' : '');
    if (folder !== 'INBOX') response.command('set_unread_count', folder, await services.mail.unreadCount(session.accountId, folder), false, '');
    for (const message of [...newer].reverse()) response.command('add_message_row', message.uid, row(message).cols, row(message).flags, true);
  }
  response.send(request.ctx);
}
