import type { ComposeDefaults } from '../sessions/compose-store.ts';
import { knownZone, writtenDate } from '../pages/dates.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { MailFolder, MailMessage, Mailbox } from '../mail/mailbox.ts';
import { folderParameter } from './mailbox-actions.ts';
import { fileName } from './view-source-action.ts';

function quote(body: string): string {
  // A MIME text part ends with a line break; quoting it would add an empty "> " line.
  return body
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** Roundcube adds the prefix unless the subject already has it (compose.php: /^re:/i, /^fwd?:/i). */
const prefixed = (subject: string, prefix: 'Re' | 'Fwd', already: RegExp): string => (already.test(subject) ? subject : `${prefix}: ${subject}`);

const without = (addresses: readonly string[], dropped: readonly string[]): string[] =>
  addresses.filter((address, index) => !dropped.includes(address.toLowerCase()) && addresses.indexOf(address) === index);

/**
 * Reply goes to the sender (from Sent: to the original recipients). Reply-all (`_reply_mode=all`) also
 * copies everyone else, as Roundcube does: the original To and Cc go to Cc, less the user's own address
 * and whoever is already in To.
 */
function reply(original: MailMessage, folder: MailFolder, all: boolean, own: string, zone: string | null): ComposeDefaults {
  const to = folder.role === 'sent' ? [...original.to] : [original.from];
  const others = folder.role === 'sent' ? original.cc : [...original.to, ...original.cc];
  const cc = all
    ? without(
        others,
        [own, ...to].map((address) => address.toLowerCase()),
      )
    : [];
  const thread = original.messageId ? { inReplyTo: original.messageId, references: [...original.references] } : {};
  const written = writtenDate(original.date, zone);
  return {
    to: to.join(', '),
    cc: cc.join(', '),
    subject: prefixed(original.subject, 'Re', /^re:/i),
    body: `\n\nOn ${written}, ${original.from} wrote:\n${quote(original.body)}\n`,
    ...thread,
  };
}

/** Forward inline: no recipients, and Roundcube's plain-text "Original Message" block above the body, unquoted. */
function forward(original: MailMessage, zone: string | null): ComposeDefaults {
  const headers = [
    `Subject: ${original.subject}`,
    `Date: ${writtenDate(original.date, zone)}`,
    `From: ${original.from}`,
    `To: ${original.to.join(', ')}`,
    ...(original.cc.length > 0 ? [`Cc: ${original.cc.join(', ')}`] : []),
  ];
  return {
    to: '',
    cc: '',
    subject: prefixed(original.subject, 'Fwd', /^fwd?:/i),
    body: `\n\n\n-------- Original Message --------\n${headers.join('\n')}\n\n${original.body}`,
  };
}

const uidOf = (value: string | undefined): number | null => {
  const uid = Number(value);
  return Number.isSafeInteger(uid) && uid > 0 && uid < 2 ** 32 ? uid : null;
};

/**
 * A new message starts empty, from `_to`, as a reply to `_reply_uid` (all: `_reply_mode=all`) or a forward
 * of `_forward_uid` (as an attachment: `_attachment=1`), in `_mbox`; dates are written in the reader's zone `_tz` (the page script adds it).
 */
export async function composeDefaults(request: WebmailRequest, mailbox: Mailbox): Promise<ComposeDefaults> {
  const replyUid = uidOf(input(request, '_reply_uid', 'GET'));
  const forwardUid = replyUid === null ? uidOf(input(request, '_forward_uid', 'GET')) : null;
  const uid = replyUid ?? forwardUid;
  const folder = uid !== null ? folderParameter(request, await mailbox.folders()) : null;
  const original = folder && uid !== null ? await mailbox.read(folder.path, uid, false) : null;
  if (!folder || !original) return { to: input(request, '_to', 'GET') ?? '', cc: '', subject: '', body: '' };
  const zone = knownZone(input(request, '_tz', 'GET'));
  if (forwardUid !== null && input(request, '_attachment', 'GET') === '1') {
    // Roundcube's forward as attachment: an empty body, the original attached as it was delivered, named as its download.
    const forwardAttachment = { folder: folder.path, uid: forwardUid, filename: fileName(original.subject) };
    return { to: '', cc: '', subject: prefixed(original.subject, 'Fwd', /^fwd?:/i), body: '', forwardAttachment };
  }
  if (forwardUid !== null) return forward(original, zone);
  return reply(original, folder, input(request, '_reply_mode', 'GET') === 'all', mailbox.address, zone);
}
