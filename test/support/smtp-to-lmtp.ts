import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';

/**
 * Dovecot's submission service relays over SMTP and its LMTP server answers only LHLO, so a real setup
 * puts an MTA between them; in the tests this loopback bridge is that MTA. It takes each message whole
 * and hands it to LMTP with the same envelope, answering the relay with LMTP's own refusal, if any.
 */
export async function startSmtpToLmtp(lmtpPort: number): Promise<{ port: number; close(): Promise<void> }> {
  const lmtp = nodemailer.createTransport({ host: '127.0.0.1', port: lmtpPort, lmtp: true, ignoreTLS: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        lmtp.sendMail({ envelope: { from, to }, raw: Buffer.concat(chunks) }).then(
          () => callback(),
          (error: Error & { responseCode?: number }) => callback(Object.assign(new Error(error.message), { responseCode: error.responseCode ?? 451 })),
        );
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
