import type { MailFolder, Mailbox } from '../mail/mailbox.ts';
import { folderUrl } from '../pages/app-frame.ts';
import { errorPage } from '../pages/error-page.ts';
import { messageListPage } from '../pages/message-list-page.ts';
import { messagePage } from '../pages/message-page.ts';
import { messagePreviewPage } from '../pages/message-preview-page.ts';
import { sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import { viewerOf, type LoggedInSession } from './logged-in-session.ts';
import { searchInput } from '../mail/mail-search.ts';

export const PAGE_SIZE = 50;
/** Past this page the offset would ask the server for nothing useful; it also bounds the FETCH range. */
const MAX_PAGE = 1_000_000;

/** The folder `_mbox` names, when the mailbox has it; INBOX otherwise. */
export function folderParameter(request: WebmailRequest, folders: readonly MailFolder[]): MailFolder {
  const mbox = input(request, '_mbox') ?? 'INBOX';
  return folders.find((folder) => folder.path === mbox) ?? folders.find((folder) => folder.role === 'inbox') ?? folders[0]!;
}

export function uidParameter(request: WebmailRequest): number | null {
  const raw = input(request, '_uid') ?? '';
  const uid = Number(raw);
  return /^\d{1,10}$/.test(raw) && uid > 0 && uid < 2 ** 32 ? uid : null;
}

function pageParameter(request: WebmailRequest): number {
  const page = Number(input(request, '_page', 'GET') ?? '1');
  return Number.isSafeInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1;
}

/**
 * GET ?_task=mail[&_mbox=<folder>][&_page=n][&_q=<text>&_headers=subject&_headers=from...]: a page of a
 * folder's messages, newest first; with `_q`, only those matching the search (Roundcube's quick search,
 * a GET there too: it changes nothing). A search it refuses (too long, a control character) is a 400.
 */
export async function listAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const asked = searchInput(input(request, '_q', 'GET'), request.query.getAll('_headers').join(','));
  if (asked.kind === 'refused')
    return sendPage(
      request.ctx,
      400,
      errorPage({
        title: 'Invalid search',
        lines: [asked.reason],
        link: { href: folderUrl(input(request, '_mbox', 'GET') ?? 'INBOX'), text: 'Back to the folder' },
      }),
    );
  const search = asked.kind === 'search' ? asked.search : null;
  const viewer = await viewerOf(mailbox, session);
  const folder = folderParameter(request, viewer.folders);
  const page = pageParameter(request);
  const offset = (page - 1) * PAGE_SIZE;
  const { total, messages } = search ? await mailbox.search(folder.path, search, offset, PAGE_SIZE) : await mailbox.list(folder.path, offset, PAGE_SIZE);
  const sent = input(request, '_sent', 'GET') === '1';
  const deleted = input(request, '_deleted', 'GET') === '1';
  const moved = input(request, '_moved', 'GET') === '1';
  const notice = sent ? TEXTS.messageSent : deleted ? TEXTS.messageDeleted : moved ? TEXTS.messagesMoved : undefined;
  sendPage(
    request.ctx,
    200,
    messageListPage({
      viewer,
      folder,
      messages,
      paging: { page, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)), total },
      refreshSeconds: services.config.refreshSeconds,
      notice: notice ? { type: 'confirmation', text: notice } : undefined,
      search,
    }),
  );
}

export function messageNotFound(request: WebmailRequest): void {
  sendPage(
    request.ctx,
    404,
    errorPage({
      title: 'Message not found',
      lines: ['The requested message could not be found.'],
      link: { href: '/webmail/?_task=mail', text: 'Back to the mailbox' },
    }),
  );
}

type MessageRenderer = typeof messagePage;

/** Fetches, parses and marks the message read, then renders it; the folder list is read after marking, so its unread count leaves it out. */
async function readMessage(request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox, render: MessageRenderer): Promise<void> {
  const uid = uidParameter(request);
  const folder = folderParameter(request, await mailbox.folders());
  const message = uid === null ? null : await mailbox.read(folder.path, uid, true);
  if (!message) return messageNotFound(request);
  sendPage(request.ctx, 200, render(await viewerOf(mailbox, session), folder, message));
}

/** GET ?_task=mail&_action=show&_mbox=..&_uid=..: one message on a page of its own, marked as read. */
export async function showAction(_services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  await readMessage(request, session, mailbox, messagePage);
}

/**
 * GET ?_task=mail&_action=preview&_mbox=..&_uid=..&_framed=1: the same message for the list page's preview
 * pane, marked as read as Roundcube's preview is.
 */
export async function previewAction(_services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  await readMessage(request, session, mailbox, messagePreviewPage);
}
