import nodemailer from 'nodemailer';
import type { MessageEnvelope, StoredOriginal } from './mail-store.ts';
import { forwardedParts } from './imap-outbox.ts';

export type RelayedMessage = MessageEnvelope & {
  readonly messageId: string;
  readonly body: string;
  readonly forwarded: readonly StoredOriginal[];
  readonly date: Date;
  /** Only these get it over SMTP; the local recipients are in To/Cc but were delivered already. */
  readonly envelopeTo: readonly string[];
};

/** Hands mail for other domains to the server named by SMTP_URL. */
export interface SmtpRelay {
  relay(message: RelayedMessage): Promise<void>;
  close(): void;
}

export function createSmtpRelay(smtpUrl: string): SmtpRelay {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async relay(message) {
      await transport.sendMail({
        messageId: message.messageId,
        from: message.from,
        to: [...message.to],
        cc: [...message.cc],
        subject: message.subject,
        text: message.body,
        attachments: forwardedParts(message),
        date: message.date,
        envelope: { from: message.from, to: [...message.envelopeTo] },
      });
    },
    close() {
      transport.close();
    },
  };
}
