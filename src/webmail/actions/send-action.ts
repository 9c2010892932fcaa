import { unlockId } from '../ajax-response.ts';
import { framedResultPage, type FramedResult } from '../pages/framed-result-page.ts';
import { sendPage } from '../responses.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import { input, loggedRequest, type WebmailRequest } from '../webmail-request.ts';
import type { LoggedInSession } from './logged-in-session.ts';

export const INVALID_COMPOSE_ID = 'Invalid compose ID';

function answer(request: WebmailRequest, result: Omit<FramedResult, 'unlock'>): void {
  sendPage(request.ctx, 200, framedResultPage({ ...result, unlock: unlockId(input(request, '_unlock', 'GET')) }));
}

/**
 * POST ?_task=mail&_action=send&_unlock=<id>&_framed=1 with `_id`, `_token`, `_to`, `_cc`, `_subject`,
 * `_body` (the token was checked before). The compose ID is claimed first, so an unknown, another
 * session's or an already used one sends nothing: Roundcube's logged "Invalid compose ID" and its
 * framed "internal error" answer.
 */
export async function sendAction(services: WebmailServices, request: WebmailRequest, session: LoggedInSession): Promise<void> {
  const composeId = input(request, '_id') ?? '';
  if (!(await services.compose.claim(session.id, composeId))) {
    services.errors.raise(loggedRequest(request), INVALID_COMPOSE_ID);
    return answer(request, { type: 'error', message: TEXTS.internalError });
  }
  const outcome = await services.sender.send({
    senderAccountId: session.accountId,
    senderUsername: session.username,
    to: input(request, '_to', 'POST') ?? '',
    cc: input(request, '_cc', 'POST') ?? '',
    subject: input(request, '_subject', 'POST') ?? '',
    body: (input(request, '_body', 'POST') ?? '').replace(/\r\n/g, '\n'),
  });
  if (outcome.kind === 'sent') {
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
