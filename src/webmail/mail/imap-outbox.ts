import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { domainOf, parseRecipients } from './addresses.ts';
import type { OutgoingMail, SendOutcome } from './mailbox.ts';

const MAX_SUBJECT = 998;
/** Builds the message once, so what goes out over SMTP is byte for byte what is kept in Sent. */
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/**
 * Each original as a `message/rfc822` part; nodemailer leaves a message/* part unencoded (mime-node
 * getTransferEncoding), so it carries the original byte for byte. An uploaded file is base64 whatever its
 * type (nodemailer would pick quoted-printable for text/*), and a non-ASCII name is RFC 2231 encoded.
 */
export const forwardedParts = (mail: Pick<OutgoingMail, 'forwarded'>) =>
  (mail.forwarded ?? []).map((file) => ({
    filename: file.filename,
    content: file.raw,
    contentType: file.contentType ?? 'message/rfc822',
    contentDisposition: 'attachment' as const,
    ...(file.contentType ? { contentTransferEncoding: 'base64' as const } : {}),
  }));

/**
 * The message's bytes as they go out (and into Sent), or why not: an invalid address, or (to send, not
 * for a draft, which may be saved before it has any) no recipient at all.
 */
export async function buildMessage(
  mail: OutgoingMail,
  from: string,
  mailDomain: string,
  purpose: 'send' | 'draft',
): Promise<{ readonly raw: Buffer; readonly everyone: string[] } | { readonly refused: string }> {
  const to = parseRecipients(mail.to, mailDomain);
  const cc = parseRecipients(mail.cc, mailDomain);
  if ('invalid' in to || 'invalid' in cc) return { refused: `Invalid e-mail address: ${'invalid' in to ? to.invalid : (cc as { invalid: string }).invalid}` };
  const everyone = [...new Set([...to.addresses, ...cc.addresses])];
  if (everyone.length === 0 && purpose === 'send') return { refused: 'Please enter at least one recipient.' };
  const built = await composer.sendMail({
    messageId: `<${randomUUID()}@${domainOf(from) || mailDomain}>`,
    from,
    to: [...to.addresses],
    cc: [...cc.addresses],
    subject: mail.subject.replace(/[\r\n]+/g, ' ').slice(0, MAX_SUBJECT),
    text: mail.body,
    date: new Date(),
    attachments: forwardedParts(mail),
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: [...(mail.references ?? []), mail.inReplyTo] } : {}),
  });
  return { raw: built.message as Buffer, everyone };
}

/**
 * Sends as the signed-in user through the submission server (SMTP_URL, usually port 587 with STARTTLS),
 * authenticated with the user's own credentials as Roundcube does, then hands the same bytes to `keep`
 * (the append to Sent). A refused submission keeps nothing.
 */
export class ImapOutbox {
  private readonly server: URL;

  constructor(
    smtpUrl: string,
    private readonly credentials: { readonly user: string; readonly password: string },
    private readonly mailDomain: string,
  ) {
    this.server = new URL(smtpUrl);
  }

  async send(mail: OutgoingMail, from: string, keep: (raw: Buffer) => Promise<void>): Promise<SendOutcome> {
    const built = await buildMessage(mail, from, this.mailDomain, 'send');
    if ('refused' in built) return { kind: 'refused', message: built.refused };
    const { raw, everyone } = built;
    const transport = nodemailer.createTransport({
      host: this.server.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.server.port) || (this.server.protocol === 'smtps:' ? 465 : 587),
      secure: this.server.protocol === 'smtps:',
      auth: { user: this.credentials.user, pass: this.credentials.password },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 60_000,
    });
    try {
      await transport.sendMail({ envelope: { from, to: everyone }, raw });
    } catch (error) {
      return { kind: 'relayFailed', message: (error as Error).message };
    } finally {
      transport.close();
    }
    try {
      await keep(raw);
    } catch (error) {
      // It has gone out: saying "failed" would invite sending it twice.
      return { kind: 'sent', unsaved: (error as Error).message };
    }
    return { kind: 'sent' };
  }
}
