import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite-account-store.ts';
import { CredentialSealer } from '../../src/webmail/mail/credential-sealer.ts';
import { ImapMailboxes } from '../../src/webmail/mail/imap-mailboxes.ts';
import { LocalMailboxes } from '../../src/webmail/mail/local-mailbox.ts';
import { MailSender } from '../../src/webmail/mail/mail-sender.ts';
import type { MailboxProvider } from '../../src/webmail/mail/mailbox.ts';
import { SqliteMailStore } from '../../src/webmail/mail/sqlite-mail-store.ts';
import { OwnDovecot } from '../support/dovecot.ts';
import { scratchDir } from '../support/scratch-dir.ts';

export type MailUser = { readonly login: string; readonly password: string; readonly address: string };
export type Incoming = { readonly from: string; readonly subject: string; readonly body: string };

/** What the mailbox contract needs of a setting: users, mail arriving from elsewhere, and the provider. */
export interface MailboxFixture {
  readonly provider: MailboxProvider;
  user(prefix: string): Promise<MailUser>;
  /** Mail from outside this user's own doing (another account, or LMTP from the world). */
  deliver(to: MailUser, mail: Incoming): Promise<void>;
  close(): Promise<void>;
}

const fresh = (prefix: string) => `${prefix}${randomUUID().slice(0, 8)}`;

/** The service's own accounts and the SQLite mail store. */
export async function localFixture(): Promise<MailboxFixture> {
  const dir = scratchDir('mailbox-local-');
  const accounts = SqliteAccountStore.inDataDir(dir);
  const mail = SqliteMailStore.inDataDir(dir);
  const sender = new MailSender({ accounts, mail, mailDomain: 'localhost', relay: null });
  const outsider = await accounts.createAccount(fresh('outsider'));
  const ids = new Map<string, string>();
  return {
    provider: new LocalMailboxes({ accounts, mail, sender, mailDomain: 'localhost' }),
    async user(prefix) {
      const login = fresh(prefix);
      const password = `pw-${randomUUID()}`;
      const account = await accounts.createAccount(login);
      await accounts.setPasswordHash(account.id, await hashPassword(password));
      ids.set(login, account.id);
      return { login, password, address: `${login}@localhost` };
    },
    async deliver(to, incoming) {
      await mail.deliver({
        messageId: `<${randomUUID()}@localhost>`,
        from: incoming.from,
        to: [to.address],
        cc: [],
        subject: incoming.subject,
        body: incoming.body,
        date: new Date().toISOString(),
        senderAccountId: outsider.id,
        localRecipients: [{ accountId: ids.get(to.login)!, address: to.address }],
      });
    },
    async close() {
      await mail.close();
      await accounts.close();
    },
  };
}

/** Delivers raw MIME into a Dovecot user's INBOX over LMTP, as a mail server's MTA would. */
export async function deliverOverLmtp(dovecot: OwnDovecot, to: string, raw: string | Buffer, from = 'someone@example.org'): Promise<void> {
  const lmtp = nodemailer.createTransport({ host: '127.0.0.1', port: dovecot.lmtpPort, lmtp: true, ignoreTLS: true });
  try {
    await lmtp.sendMail({ envelope: { from, to: [to] }, raw });
  } finally {
    lmtp.close();
  }
}

/** A Dovecot of the test's own: IMAP sign-in, LMTP delivery, submission for sending. */
export async function imapFixture(dovecot: OwnDovecot): Promise<MailboxFixture> {
  const provider = new ImapMailboxes({
    imapUrl: dovecot.imapUrl,
    smtpUrl: dovecot.smtpUrl,
    mailDomain: 'localhost',
    sealer: CredentialSealer.fromSetting(randomUUID(), scratchDir('sealer-')),
  });
  return {
    provider,
    async user(prefix) {
      const login = fresh(prefix);
      const password = `pw-${randomUUID()}`;
      dovecot.addUsers({ name: login, password });
      return { login, password, address: `${login}@localhost` };
    },
    async deliver(to, incoming) {
      const raw = `From: ${incoming.from}\r\nTo: ${to.address}\r\nSubject: ${incoming.subject}\r\nMessage-ID: <${randomUUID()}@example.org>\r\nDate: ${new Date().toUTCString()}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${incoming.body}\r\n`;
      await deliverOverLmtp(dovecot, to.address, raw, incoming.from);
    },
    async close() {},
  };
}
