import type { Mailbox } from '../mail/mailbox.ts';
import { folderUrl } from '../pages/app-frame.ts';
import { errorPage } from '../pages/error-page.ts';
import { redirect, sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { LoggedInSession } from './logged-in-session.ts';
import { folderParameter, messageNotFound } from './mailbox-actions.ts';

/** What one delete or move may ask for: docs/webmail.md lists it. */
export const SELECTION_LIMITS = {
  /** Uids in one request's `_uid`; more is refused whole, nothing done. */
  uids: 100,
} as const;

const UID = /^\d{1,10}$/;

/**
 * Roundcube's `_uid`: one uid or a comma-separated list (the list's checkboxes, joined by formFields).
 * Null when it is empty, malformed or longer than SELECTION_LIMITS allow; duplicates count once.
 */
export function uidsParameter(request: WebmailRequest): readonly number[] | null {
  const raw = input(request, '_uid') ?? '';
  const parts = raw.split(',');
  if (raw === '' || parts.length > SELECTION_LIMITS.uids || !parts.every((part) => UID.test(part))) return null;
  const uids = [...new Set(parts.map(Number))];
  return uids.every((uid) => uid > 0 && uid < 2 ** 32) ? uids : null;
}

function badSelection(request: WebmailRequest): void {
  sendPage(
    request.ctx,
    400,
    errorPage({
      title: 'Invalid request',
      lines: [`Select between 1 and ${SELECTION_LIMITS.uids} messages.`],
      link: { href: folderUrl(input(request, '_mbox') ?? 'INBOX'), text: 'Back to the folder' },
    }),
  );
}

/** POST ?_task=mail&_action=delete with `_mbox`, `_uid` (one or a list) and the request token: to Trash, as Roundcube's default. */
export async function deleteAction(_services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const uids = uidsParameter(request);
  if (!uids) return badSelection(request);
  const folder = folderParameter(request, await mailbox.folders());
  if ((await mailbox.removeAll(folder.path, uids)) === 0) return messageNotFound(request);
  redirect(request.ctx, `${folderUrl(folder.path)}&_deleted=1`);
}

/**
 * POST ?_task=mail&_action=move with `_mbox`, `_uid` (one or a list), `_target_mbox` and the request token,
 * as Roundcube's move: the messages go to another of the user's folders. An unknown target is a 400.
 */
export async function moveAction(_services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const uids = uidsParameter(request);
  if (!uids) return badSelection(request);
  const folders = await mailbox.folders();
  const folder = folderParameter(request, folders);
  const target = folders.find((entry) => entry.path === input(request, '_target_mbox', 'POST'));
  if (!target || target.path === folder.path) {
    const page = errorPage({
      title: 'Invalid request',
      lines: ['Choose another folder to move to.'],
      link: { href: folderUrl(folder.path), text: 'Back to the folder' },
    });
    return sendPage(request.ctx, 400, page);
  }
  if ((await mailbox.move(folder.path, uids, target.path)) === 0) return messageNotFound(request);
  redirect(request.ctx, `${folderUrl(folder.path)}&_moved=1`);
}
