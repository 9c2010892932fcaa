import { composePage } from '../pages/compose-page.ts';
import { composeSessionErrorPage, errorPage } from '../pages/error-page.ts';
import { resumeDraft } from './draft-action.ts';
import { redirect, sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { Mailbox } from '../mail/mailbox.ts';
import { composeDefaults } from './compose-defaults.ts';
import { viewerOf, type LoggedInSession } from './logged-in-session.ts';

/**
 * GET ?_task=mail&_action=compose makes a compose ID and redirects to `&_id=<id>`, which shows the form.
 * An unknown ID is Roundcube's 450 "compose session error" (not logged), except the ID just sent, which
 * (the Back button after sending) quietly starts a new message.
 */
export async function composeAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const id = input(request, '_id', 'GET');
  if (id !== undefined) {
    const compose = await services.compose.find(session.id, id);
    if (compose) return sendPage(request.ctx, 200, composePage(await viewerOf(mailbox, session), compose, await services.compose.attachments(session.id, id)));
    if (id !== session.lastComposeId) return sendPage(request.ctx, 450, composeSessionErrorPage());
  }
  const draftUid = Number(input(request, '_draft_uid', 'GET'));
  if (Number.isSafeInteger(draftUid) && draftUid > 0 && draftUid < 2 ** 32) {
    const resumed = await resumeDraft(services, session, mailbox, draftUid);
    if (!resumed)
      return sendPage(
        request.ctx,
        404,
        errorPage({ title: 'Not found', lines: ['Message not found'], link: { href: '/webmail/?_task=mail&_mbox=Drafts', text: 'Go to Drafts' } }),
      );
    return redirect(request.ctx, `/webmail/?_task=mail&_action=compose&_id=${resumed.id}`);
  }
  const compose = await services.compose.open(session.id, await composeDefaults(request, mailbox));
  redirect(request.ctx, `/webmail/?_task=mail&_action=compose&_id=${compose.id}`);
}
