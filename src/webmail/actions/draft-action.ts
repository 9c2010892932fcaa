import type { Mailbox, OutgoingMail } from '../mail/mailbox.ts';
import { TEXTS } from '../pages/ui-texts.ts';
import type { ComposeSession } from '../sessions/compose-store.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, loggedRequest, type WebmailRequest } from '../webmail-request.ts';
import { forwardedOriginal } from './forward-attachment.ts';
import type { LoggedInSession } from './logged-in-session.ts';
import { UPLOAD_LIMITS } from './upload-limits.ts';

/** The compose ID's files as the mailbox sends them: a `message/rfc822` one is an original again (sent unencoded). */
export async function composedFiles(services: WebmailServices, session: LoggedInSession, composeId: string): Promise<NonNullable<OutgoingMail['forwarded']>> {
  return (await services.compose.attachedFiles(session.id, composeId)).map(({ filename, content, contentType }) =>
    contentType === 'message/rfc822' ? { filename, raw: content } : { filename, raw: content, contentType },
  );
}

/** What the form holds, as both the send and the draft save take it. */
export const formMail = (request: WebmailRequest): Pick<OutgoingMail, 'to' | 'cc' | 'subject' | 'body'> => ({
  to: input(request, '_to', 'POST') ?? '',
  cc: input(request, '_cc', 'POST') ?? '',
  subject: input(request, '_subject', 'POST') ?? '',
  body: (input(request, '_body', 'POST') ?? '').replace(/\r\n/g, '\n'),
});

export type DraftAnswer = { readonly type: 'confirmation' | 'error'; readonly message: string };

/**
 * The send form with `_draft=1` (Roundcube's send.php, `$savedraft`): the message as it stands, its
 * uploads and a forwarded original included, goes to Drafts and replaces this compose ID's last draft.
 * The ID stays open (no claim), so the form may be saved again or sent.
 */
export async function saveDraft(
  services: WebmailServices,
  request: WebmailRequest,
  session: LoggedInSession,
  mailbox: Mailbox,
  compose: ComposeSession,
): Promise<DraftAnswer> {
  const { defaults } = compose;
  const original = defaults.forwardAttachment ? await forwardedOriginal(mailbox, defaults.forwardAttachment) : null;
  if (original && 'refused' in original) return { type: 'error', message: original.refused };
  const mail = {
    ...formMail(request),
    inReplyTo: defaults.inReplyTo,
    references: defaults.references,
    forwarded: [...(original ? [original] : []), ...(await composedFiles(services, session, compose.id))],
  };
  const outcome = await mailbox.saveDraft(mail, compose.draft?.uid ?? null);
  if (outcome.kind === 'refused') return { type: 'error', message: outcome.message };
  await services.compose.keepDraft(session.id, compose.id, { folder: outcome.folder, uid: outcome.uid });
  return { type: 'confirmation', message: TEXTS.draftSaved };
}

/** After a send: the draft it was written from is deleted, as Roundcube's send.php does; a failure only goes to the log. */
export async function removeSentDraft(services: WebmailServices, request: WebmailRequest, mailbox: Mailbox, compose: ComposeSession | null): Promise<void> {
  if (!compose?.draft) return;
  await mailbox.deleteDraft(compose.draft.uid).catch((error: unknown) => {
    services.errors.raise(loggedRequest(request), `Could not delete the sent draft: ${(error as Error).message}`, 'IMAP');
  });
}

/**
 * Compose with `_draft_uid` (Roundcube's compose.php, `$compose_mode = DRAFT`): a new compose ID holding the
 * draft's recipients, subject, body and files, that replaces the draft when saved and removes it when
 * sent. Null when the user has no Drafts folder or no such draft there.
 */
export async function resumeDraft(services: WebmailServices, session: LoggedInSession, mailbox: Mailbox, uid: number): Promise<ComposeSession | null> {
  const drafts = (await mailbox.folders()).find((folder) => folder.role === 'drafts');
  const draft = drafts ? await mailbox.read(drafts.path, uid, false) : null;
  const files = draft ? await mailbox.draftFiles(uid) : null;
  if (!drafts || !draft || !files) return null;
  const thread = draft.references.length > 0 ? { inReplyTo: draft.references.at(-1), references: draft.references.slice(0, -1) } : {};
  const compose = await services.compose.open(session.id, {
    to: draft.to.join(', '),
    cc: draft.cc.join(', '),
    subject: draft.subject,
    body: draft.body,
    ...thread,
  });
  for (const file of files) {
    const content = { filename: file.filename, contentType: file.contentType ?? 'message/rfc822', content: file.raw };
    // A draft saved here fits the room; one from elsewhere keeps what fits.
    await services.compose.attach(session.id, compose.id, content, UPLOAD_LIMITS);
  }
  await services.compose.keepDraft(session.id, compose.id, { folder: drafts.path, uid });
  return compose;
}
