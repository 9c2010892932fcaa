import { convert, type HtmlToTextOptions } from 'html-to-text';
import { simpleParser, type AddressObject } from 'mailparser';
import type { MailAttachment } from './mailbox.ts';
import { READING_LIMITS, shownText } from './reading-limits.ts';

/** What the reader shows of a raw message; plain data, so it crosses from the parser process as it is. */
export type ParsedMail = {
  readonly from: string | null;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string | null;
  /** ISO-8601, when the message has a readable Date. */
  readonly date: string | null;
  readonly body: string;
  readonly cut: boolean;
  readonly messageId: string;
  readonly references: readonly string[];
  readonly attachments: readonly MailAttachment[];
  readonly unlistedAttachments: number;
};

const addressesOf = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((group) => group.value.map((entry) => entry.address ?? entry.name)).filter(Boolean);

/**
 * HTML as text, as mailparser would turn it (its depth limit), after cutting it to what may be converted.
 * An image is its alt text: its address (`cid:` of an inline part, or a tracker) means nothing to a reader.
 */
const HTML_TO_TEXT: HtmlToTextOptions = {
  limits: { maxDepth: 1000, maxInputLength: undefined },
  formatters: { altText: (element, _walk, builder) => builder.addInline(String((element.attribs as Record<string, string> | undefined)?.alt ?? '')) },
  selectors: [{ selector: 'img', format: 'altText' }],
};

function htmlAsText(html: string): { text: string; cut: boolean } {
  const cut = html.length > READING_LIMITS.htmlChars;
  return { text: convert(cut ? html.slice(0, READING_LIMITS.htmlChars) : html, HTML_TO_TEXT), cut };
}

/**
 * Parses a raw message (MIME multipart, any charset, quoted-printable or base64) into what the reader
 * shows: the text parts, or else the HTML turned into text (also an HTML-only part inside a multipart,
 * which mailparser leaves without text), cut to the reading limits, and the attachments by name and size.
 * Rejects when the parser gives up (its header and part limits): the message is then unreadable.
 */
export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  const parsed = await simpleParser(raw, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
    maxHeadSize: READING_LIMITS.headerBytes,
    maxChildNodes: READING_LIMITS.mimeParts,
  } as Parameters<typeof simpleParser>[1]);
  const converted = parsed.text ? { text: parsed.text, cut: false } : parsed.html ? htmlAsText(parsed.html) : { text: '', cut: false };
  const shown = shownText(converted.text);
  const references = typeof parsed.references === 'string' ? [parsed.references] : (parsed.references ?? []);
  return {
    from: addressesOf(parsed.from)[0] ?? null,
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    subject: parsed.subject ?? null,
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    body: shown.text,
    cut: converted.cut || shown.cut,
    messageId: parsed.messageId ?? '',
    references,
    attachments: parsed.attachments.slice(0, READING_LIMITS.listedAttachments).map((attachment) => ({
      filename: attachment.filename ?? '(unnamed)',
      size: attachment.size,
      contentType: attachment.contentType,
    })),
    unlistedAttachments: Math.max(0, parsed.attachments.length - READING_LIMITS.listedAttachments),
  };
}
