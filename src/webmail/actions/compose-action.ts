import type { ComposeDefaults } from '../sessions/compose-store.ts';
import { composePage } from '../pages/compose-page.ts';
import { knownZone, writtenDate } from '../pages/dates.ts';
import { composeSessionErrorPage } from '../pages/error-page.ts';
import { redirect, sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { Mailbox } from '../mail/mailbox.ts';
import { folderParameter } from './mailbox-actions.ts';
import { viewerOf, type LoggedInSession } from './logged-in-session.ts';

function quote(body: string): string {
  // A MIME text part ends with a line break; quoting it would add an empty "> " line.
  return body
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/**
 * A new message starts empty, from `_to`, or as a reply to `_reply_uid` in `_mbox`, in its thread, its
 * quote header dated in the reader's zone `_tz` (the page script adds it to the Reply link).
 */
async function composeDefaults(request: WebmailRequest, mailbox: Mailbox): Promise<ComposeDefaults> {
  const replyUid = Number(input(request, '_reply_uid', 'GET'));
  const folder = Number.isSafeInteger(replyUid) && replyUid > 0 && replyUid < 2 ** 32 ? folderParameter(request, await mailbox.folders()) : null;
  const original = folder ? await mailbox.read(folder.path, replyUid, false) : null;
  if (!folder || !original) return { to: input(request, '_to', 'GET') ?? '', cc: '', subject: '', body: '' };
  const subject = /^re:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`;
  const to = folder.role === 'sent' ? original.to.join(', ') : original.from;
  const thread = original.messageId ? { inReplyTo: original.messageId, references: [...original.references] } : {};
  const written = writtenDate(original.date, knownZone(input(request, '_tz', 'GET')));
  return { to, cc: '', subject, body: `\n\nOn ${written}, ${original.from} wrote:\n${quote(original.body)}\n`, ...thread };
}

/**
 * GET ?_task=mail&_action=compose makes a compose ID and redirects to `&_id=<id>`, which shows the form.
 * An unknown ID is Roundcube's 450 "compose session error" (not logged), except the ID just sent, which
 * (the Back button after sending) quietly starts a new message.
 */
export async function composeAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const id = input(request, '_id', 'GET');
  if (id !== undefined) {
    const compose = await services.compose.find(session.id, id);
    if (compose) return sendPage(request.ctx, 200, composePage(await viewerOf(mailbox, session), compose));
    if (id !== session.lastComposeId) return sendPage(request.ctx, 450, composeSessionErrorPage());
  }
  const compose = await services.compose.open(session.id, await composeDefaults(request, mailbox));
  redirect(request.ctx, `/webmail/?_task=mail&_action=compose&_id=${compose.id}`);
}
