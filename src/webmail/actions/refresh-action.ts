import { AjaxResponse, unlockId } from '../ajax-response.ts';
import type { MailHeader, Mailbox } from '../mail/mailbox.ts';
import { shortDate } from '../pages/dates.ts';
import { correspondentOf } from '../pages/message-list-page.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import { PAGE_SIZE, folderParameter } from './mailbox-actions.ts';
import type { LoggedInSession } from './logged-in-session.ts';

const row = (message: MailHeader, sentFolder: boolean) => ({
  cols: { fromto: correspondentOf(message, sentFolder), subject: message.subject, date: shortDate(message.date), datetime: message.date },
  flags: { seen: message.seen, flagged: message.flagged, mbox: message.folder },
});

/**
 * POST ?_task=mail&_action=refresh, sent by an open mailbox every refresh interval. With `_folderlist=1`
 * it answers INBOX's and the open folder's unread counts (IMAP STATUS); with `_list=1` also the rows that arrived after the
 * highest of `_uids` (oldest first, each to be put at the top). Without either it does nothing, like Roundcube.
 */
export async function refreshAction(_services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const response = new AjaxResponse('refresh', unlockId(input(request, '_unlock')));
  const wantsList = input(request, '_list', 'POST') === '1';
  if (wantsList || input(request, '_folderlist', 'POST') === '1') {
    const folders = await mailbox.folders();
    const folder = folderParameter(request, folders);
    const shown = (input(request, '_uids', 'POST') ?? '')
      .split(',', 1000)
      .map(Number)
      .filter((uid) => Number.isSafeInteger(uid) && uid >= 0);
    const newer = wantsList ? await mailbox.listNewerThan(folder.path, Math.max(0, ...shown), PAGE_SIZE) : [];
    const news = newer.some((message) => !message.seen);
    // Roundcube without check_all_folders: the open folder's count, and here also INBOX's, which the title shows.
    for (const entry of folders.filter((candidate) => candidate.role === 'inbox' || candidate.path === folder.path)) {
      response.command('set_unread_count', entry.path, entry.unread, entry.role === 'inbox', entry.path === folder.path && news ? 'recent' : '');
    }
    for (const message of [...newer].reverse()) {
      const { cols, flags } = row(message, folder.role === 'sent');
      response.command('add_message_row', message.uid, cols, flags, true);
    }
  }
  response.send(request.ctx);
}
