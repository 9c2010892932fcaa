import type { MailHeader, MailMessage } from './mailbox.ts';
import type { ParseOutcome } from './message-parser.ts';

/**
 * The message as the reader shows it: what the parser read, over the server's own header (ENVELOPE),
 * which stands in for what the parser could not read, and alone when it gave up on the message.
 */
export function readerView(header: MailHeader, outcome: ParseOutcome): MailMessage {
  if ('unreadable' in outcome) {
    return {
      ...header,
      body: '',
      messageId: '',
      references: [],
      attachments: [],
      shown: { cut: false, unreadable: outcome.unreadable, unlistedAttachments: 0 },
    };
  }
  const { parsed } = outcome;
  return {
    ...header,
    from: parsed.from ?? header.from,
    to: parsed.to.length > 0 ? parsed.to : header.to,
    cc: parsed.cc.length > 0 ? parsed.cc : header.cc,
    subject: parsed.subject ?? header.subject,
    date: parsed.date ?? header.date,
    body: parsed.body,
    messageId: parsed.messageId,
    references: parsed.references,
    attachments: parsed.attachments,
    shown: { cut: parsed.cut, unreadable: null, unlistedAttachments: parsed.unlistedAttachments },
  };
}
