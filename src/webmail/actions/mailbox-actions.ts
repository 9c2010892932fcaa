import { isFolder, type Folder } from '../mail/mail-store.ts';
import { errorPage } from '../pages/error-page.ts';
import { messageListPage } from '../pages/message-list-page.ts';
import { messagePage } from '../pages/message-page.ts';
import { sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import { viewerOf, type LoggedInSession } from './logged-in-session.ts';

export const PAGE_SIZE = 50;

export function folderParameter(request: WebmailRequest): Folder {
  const mbox = input(request, '_mbox') ?? 'INBOX';
  return isFolder(mbox) ? mbox : 'INBOX';
}

/** GET ?_task=mail[&_mbox=INBOX|Sent]: a folder's newest messages. */
export async function listAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const folder = folderParameter(request);
  const sent = input(request, '_sent', 'GET') === '1';
  sendPage(
    request.ctx,
    200,
    messageListPage({
      viewer: await viewerOf(services, session),
      folder,
      messages: await services.mail.list(session.accountId, folder, PAGE_SIZE),
      refreshSeconds: services.config.refreshSeconds,
      notice: sent ? { type: 'confirmation', text: TEXTS.messageSent } : undefined,
    }),
  );
}

/** GET ?_task=mail&_action=show&_mbox=..&_uid=..: one message, marked as read. */
export async function showAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const uid = Number(input(request, '_uid'));
  const message = Number.isSafeInteger(uid) ? await services.mail.get(session.accountId, folderParameter(request), uid) : null;
  if (!message) {
    sendPage(
      request.ctx,
      404,
      errorPage({
        title: 'Message not found',
        lines: ['The requested message could not be found.'],
        link: { href: '/webmail/?_task=mail', text: 'Back to the mailbox' },
      }),
    );
    return;
  }
  if (!message.seen) await services.mail.markSeen(session.accountId, uid);
  sendPage(request.ctx, 200, messagePage(await viewerOf(services, session), { ...message, seen: true }));
}
