import { unlockId } from '../ajax-response.ts';
import { framedResultPage, type FramedResult } from '../pages/framed-result-page.ts';
import { sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { input, loggedRequest, type WebmailRequest } from '../webmail-request.ts';
import type { Mailbox } from '../mail/mailbox.ts';
import type { LoggedInSession } from './logged-in-session.ts';
import { forwardedOriginal } from './forward-attachment.ts';
import { composedFiles, formMail, removeSentDraft, saveDraft } from './draft-action.ts';

export const INVALID_COMPOSE_ID = 'Invalid compose ID';

function answer(request: WebmailRequest, result: Omit<FramedResult, 'unlock'>): void {
  sendPage(request.ctx, 200, framedResultPage({ ...result, unlock: unlockId(input(request, '_unlock', 'GET')) }));
}

/** The server failed before anything went out: the form may be sent again. */
const releasing =
  (services: WebmailServices, composeId: string) =>
  async (error: unknown): Promise<never> => {
    await services.compose.release(composeId);
    throw error;
  };

/**
 * POST ?_task=mail&_action=send&_unlock=<id>&_framed=1 with `_id`, `_token`, `_to`, `_cc`, `_subject`,
 * `_body` (the token was checked before); with `_draft=1` the message is saved to Drafts instead (draft-action.ts). A forward as attachment fetches the original again here. The compose ID is claimed first, so an unknown, another
 * session's or an already used one sends nothing: Roundcube's logged "Invalid compose ID" and its
 * framed "internal error" answer.
 */
export async function sendAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const composeId = input(request, '_id') ?? '';
  // Read before the claim: a claimed ID is no longer "open", and the reply's thread is in its defaults.
  const compose = await services.compose.find(session.id, composeId);
  const thread = compose?.defaults;
  if (compose && input(request, '_draft', 'POST') === '1') return answer(request, await saveDraft(services, request, session, mailbox, compose));
  if (!(await services.compose.claim(session.id, composeId))) {
    services.errors.raise(loggedRequest(request), INVALID_COMPOSE_ID);
    return answer(request, { type: 'error', message: TEXTS.internalError });
  }
  const original = thread?.forwardAttachment ? await forwardedOriginal(mailbox, thread.forwardAttachment).catch(releasing(services, composeId)) : null;
  if (original && 'refused' in original) {
    await services.compose.release(composeId);
    return answer(request, { type: 'error', message: original.refused });
  }
  const uploads = await composedFiles(services, session, composeId);
  const outcome = await mailbox
    .send({
      forwarded: [...(original ? [original] : []), ...uploads],
      inReplyTo: thread?.inReplyTo,
      references: thread?.references,
      ...formMail(request),
    })
    .catch(releasing(services, composeId));
  if (outcome.kind === 'sent') {
    if (outcome.unsaved) services.errors.raise(loggedRequest(request), `Could not save the sent message to Sent: ${outcome.unsaved}`, 'IMAP');
    await removeSentDraft(services, request, mailbox, compose);
    await services.compose.finish(composeId);
    await services.sessions.rememberSentCompose(session.id, composeId);
    return answer(request, { type: 'confirmation', message: TEXTS.messageSent, next: '/webmail/?_task=mail&_mbox=Sent&_sent=1' });
  }
  await services.compose.release(composeId);
  if (outcome.kind === 'relayFailed') {
    services.errors.raise(loggedRequest(request), outcome.message, 'SMTP');
    return answer(request, { type: 'error', message: `SMTP Error: ${outcome.message}` });
  }
  answer(request, { type: 'error', message: outcome.message });
}
