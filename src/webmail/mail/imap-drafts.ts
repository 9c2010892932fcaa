import type { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { buildMessage } from './imap-outbox.ts';
import type { DraftOutcome, ForwardedOriginal, MailFolder, OutgoingMail } from './mailbox.ts';
import { READING_LIMITS } from './reading-limits.ts';

/**
 * The largest draft resumed: what the webmail itself saves (UPLOAD_LIMITS' 4 MB of files as base64, a
 * forwarded original of 10 MB, the body), with room to spare; a larger one resumes without its files.
 */
const DRAFT_SOURCE_BYTES = 20 * 1024 * 1024;

export const draftsFolder = (folders: readonly MailFolder[]): MailFolder | undefined => folders.find((folder) => folder.role === 'drafts');

/** Roundcube's save to Drafts: APPEND with \Draft and \Seen (UIDPLUS gives its uid), then the draft it replaces expunged. */
export async function saveImapDraft(
  client: ImapFlow,
  drafts: MailFolder | undefined,
  mail: OutgoingMail,
  from: string,
  mailDomain: string,
  replacing: number | null,
): Promise<DraftOutcome> {
  if (!drafts) return { kind: 'refused', message: 'This mailbox has no Drafts folder.' };
  const built = await buildMessage(mail, from, mailDomain, 'draft');
  if ('refused' in built) return { kind: 'refused', message: built.refused };
  const appended = await client.append(drafts.path, built.raw, ['\\Draft', '\\Seen']);
  if (!appended || !appended.uid) return { kind: 'refused', message: 'The server did not say where it saved the draft.' };
  if (replacing !== null && replacing !== appended.uid) await deleteImapDraft(client, drafts, replacing);
  return { kind: 'saved', folder: drafts.path, uid: appended.uid };
}

/** UID STORE \Deleted and UID EXPUNGE of that uid only; false when it is not (or no longer) there. */
export async function deleteImapDraft(client: ImapFlow, drafts: MailFolder | undefined, uid: number): Promise<boolean> {
  if (!drafts) return false;
  await client.mailboxOpen(drafts.path, { readOnly: false });
  const there = (await client.search({ uid: String(uid) }, { uid: true })) || [];
  if (!there.includes(uid)) return false;
  return client.messageDelete(String(uid), { uid: true });
}

/** The draft's attachments with their bytes, parsed from its source (bounded: DRAFT_SOURCE_BYTES). */
export async function imapDraftFiles(client: ImapFlow, drafts: MailFolder | undefined, uid: number): Promise<ForwardedOriginal[] | null> {
  if (!drafts) return null;
  await client.mailboxOpen(drafts.path, { readOnly: true });
  const found = await client.fetchOne(String(uid), { uid: true, size: true }, { uid: true });
  if (!found || found.uid !== uid) return null;
  if ((found.size ?? 0) > DRAFT_SOURCE_BYTES) return [];
  const fetched = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
  if (!fetched || !fetched.source) return [];
  const parsed = await simpleParser(fetched.source, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
    maxHeadSize: READING_LIMITS.headerBytes,
    maxChildNodes: READING_LIMITS.mimeParts,
  } as Parameters<typeof simpleParser>[1]).catch(() => null);
  return (parsed?.attachments ?? []).map((file) =>
    file.contentType === 'message/rfc822'
      ? { filename: file.filename ?? 'message.eml', raw: file.content }
      : { filename: file.filename ?? 'attachment', raw: file.content, contentType: file.contentType },
  );
}
