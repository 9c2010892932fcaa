import { simpleParser, type AddressObject } from 'mailparser';
import type { MailAttachment, MailHeader, MailMessage } from './mailbox.ts';

const addressesOf = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((group) => group.value.map((entry) => entry.address ?? entry.name)).filter(Boolean);

/**
 * Parses a raw message (MIME multipart, any charset, quoted-printable or base64) into what the reader
 * shows: the text part, or the HTML part turned into text, and the attachments by name and size.
 */
export async function parseMessage(raw: Buffer, header: Omit<MailHeader, 'from' | 'to' | 'cc' | 'subject' | 'date'>, fallbackDate: Date): Promise<MailMessage> {
  const parsed = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  const attachments: MailAttachment[] = parsed.attachments.map((attachment) => ({
    filename: attachment.filename ?? '(unnamed)',
    size: attachment.size,
    contentType: attachment.contentType,
  }));
  const references = typeof parsed.references === 'string' ? [parsed.references] : (parsed.references ?? []);
  return {
    ...header,
    from: addressesOf(parsed.from)[0] ?? '',
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    subject: parsed.subject ?? '',
    date: (parsed.date ?? fallbackDate).toISOString(),
    body: parsed.text ?? '',
    messageId: parsed.messageId ?? '',
    references,
    attachments,
  };
}
