import type { Account, AccountStore } from '../../accounts/account-store.ts';
import { verifyAgainstNothing, verifyPassword } from '../../accounts/passwords.ts';
import { Readable } from 'node:stream';
import { forwardedParts } from './imap-outbox.ts';
import nodemailer from 'nodemailer';
import type { MailSearch } from './mail-search.ts';
import { shownText } from './reading-limits.ts';
import { FOLDERS, isFolder, type MailStore, type MessageHeader } from './mail-store.ts';
import { domainOf, parseRecipients } from './addresses.ts';
import type { MailSender } from './mail-sender.ts';
import {
  MARKS,
  type Mark,
  type MailFolder,
  type MailHeader,
  type MailIdentity,
  type Mailbox,
  type MailboxProvider,
  type MailMessage,
  type MailPage,
  type MailSource,
  type OutgoingMail,
  type SendOutcome,
  type DraftOutcome,
  type ForwardedOriginal,
} from './mailbox.ts';
import { randomUUID } from 'node:crypto';

const ROLES = { INBOX: 'inbox', Sent: 'sent', Drafts: 'drafts', Trash: 'trash' } as const;
const NAMES = { INBOX: 'Inbox', Sent: 'Sent', Drafts: 'Drafts', Trash: 'Trash' } as const;

const header = (message: MessageHeader): MailHeader => message;
/** The local store keeps the parts of a message, not its bytes: the original is built again from them. */
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/** One local account's mailbox in the service's own mail store (SQLite or MongoDB). */
class LocalMailbox implements Mailbox {
  constructor(
    private readonly mail: MailStore,
    private readonly sender: MailSender,
    private readonly identity: MailIdentity,
    readonly address: string,
  ) {}

  async folders(): Promise<MailFolder[]> {
    const folders: MailFolder[] = [];
    for (const path of FOLDERS) {
      folders.push({ path, name: NAMES[path], role: ROLES[path], unread: await this.mail.unreadCount(this.identity.accountId, path) });
    }
    return folders;
  }

  async list(folder: string, offset: number, limit: number): Promise<MailPage> {
    if (!isFolder(folder)) return { total: 0, messages: [] };
    const messages = await this.mail.list(this.identity.accountId, folder, limit, offset);
    return { total: await this.mail.count(this.identity.accountId, folder), messages: messages.map(header) };
  }

  async search(folder: string, search: MailSearch, offset: number, limit: number): Promise<MailPage> {
    if (!isFolder(folder)) return { total: 0, messages: [] };
    const found = await this.mail.search(this.identity.accountId, folder, search, limit, offset);
    return { total: found.total, messages: found.messages.map(header) };
  }

  async listNewerThan(folder: string, uid: number, limit: number): Promise<MailHeader[]> {
    return isFolder(folder) ? (await this.mail.listNewerThan(this.identity.accountId, folder, uid, limit)).map(header) : [];
  }

  async read(folder: string, uid: number, markSeen: boolean): Promise<MailMessage | null> {
    const stored = isFolder(folder) ? await this.mail.get(this.identity.accountId, folder, uid) : null;
    if (!stored) return null;
    if (markSeen && !stored.seen) await this.mail.markSeen(this.identity.accountId, uid);
    const { forwarded, ...message } = stored;
    const body = shownText(stored.body);
    return {
      ...message,
      body: body.text,
      seen: stored.seen || markSeen,
      references: [],
      attachments: forwarded.map(({ filename, raw, contentType }) => ({ filename, size: raw.length, contentType: contentType ?? 'message/rfc822' })),
      shown: { cut: body.cut, unreadable: null, unlistedAttachments: 0 },
    };
  }

  async source(folder: string, uid: number): Promise<MailSource | null> {
    const stored = isFolder(folder) ? await this.mail.get(this.identity.accountId, folder, uid) : null;
    if (!stored) return null;
    const { from, to, cc, subject, body, messageId, date } = stored;
    const attachments = forwardedParts(stored);
    const built = await composer.sendMail({ messageId, from, to: [...to], cc: [...cc], subject, text: body, date: new Date(date), attachments });
    return { subject, content: Readable.from([built.message as Buffer]) };
  }

  async mark(folder: string, uid: number, mark: Mark): Promise<boolean> {
    const [flag, on] = MARKS[mark];
    return isFolder(folder) && this.mail.setFlag(this.identity.accountId, folder, uid, flag, on);
  }

  async unreadCount(folder: string): Promise<number> {
    return isFolder(folder) ? this.mail.unreadCount(this.identity.accountId, folder) : 0;
  }

  async remove(folder: string, uid: number): Promise<boolean> {
    return isFolder(folder) ? this.mail.moveToTrash(this.identity.accountId, folder, uid) : false;
  }

  async removeAll(folder: string, uids: readonly number[]): Promise<number> {
    let removed = 0;
    for (const uid of uids) if (await this.remove(folder, uid)) removed += 1;
    return removed;
  }

  async move(folder: string, uids: readonly number[], target: string): Promise<number> {
    if (!isFolder(folder) || !isFolder(target)) return 0;
    let moved = 0;
    for (const uid of uids) if (await this.mail.moveTo(this.identity.accountId, folder, uid, target)) moved += 1;
    return moved;
  }

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    const outcome = await this.sender.send({ senderAccountId: this.identity.accountId, senderUsername: this.identity.username, ...mail });
    return outcome.kind === 'sent' ? { kind: 'sent' } : outcome;
  }

  async saveDraft(mail: OutgoingMail, replacing: number | null): Promise<DraftOutcome> {
    const domain = domainOf(this.address);
    const [to, cc] = [parseRecipients(mail.to, domain), parseRecipients(mail.cc, domain)];
    if ('invalid' in to || 'invalid' in cc) {
      return { kind: 'refused', message: `Invalid e-mail address: ${'invalid' in to ? to.invalid : (cc as { invalid: string }).invalid}` };
    }
    const draft = {
      messageId: `<${randomUUID()}@${domain}>`,
      from: this.address,
      to: to.addresses,
      cc: cc.addresses,
      subject: mail.subject.replace(/[\r\n]+/g, ' ').slice(0, 998),
      body: mail.body,
      forwarded: mail.forwarded ?? [],
      date: new Date().toISOString(),
    };
    return { kind: 'saved', folder: 'Drafts', uid: await this.mail.saveDraft(this.identity.accountId, draft, replacing) };
  }

  deleteDraft(uid: number): Promise<boolean> {
    return this.mail.deleteDraft(this.identity.accountId, uid);
  }

  async draftFiles(uid: number): Promise<readonly ForwardedOriginal[] | null> {
    return (await this.mail.get(this.identity.accountId, 'Drafts', uid))?.forwarded ?? null;
  }

  correspondents(search: string, limit: number): Promise<readonly string[]> {
    return this.mail.correspondents(this.identity.accountId, search, limit);
  }

  async close(): Promise<void> {}
}

/** The webmail lock's key for a local login name (`account unlock` forgets it by the account's name). */
export const localLoginKey = (name: string): string => `local:${name.toLowerCase()}`;

/** The service's own accounts: passwords checked against their scrypt hashes, mail in the local store. */
export class LocalMailboxes implements MailboxProvider {
  readonly kind = 'local';

  constructor(private readonly deps: { readonly accounts: AccountStore; readonly mail: MailStore; readonly sender: MailSender; readonly mailDomain: string }) {}

  /** Every name counts, known or not, so the lock (and its message) never tells who has an account. */
  async rateLimitKey(user: string): Promise<string | null> {
    const name = this.accountName(user).toLowerCase();
    return name === '' ? null : localLoginKey(name);
  }

  async knownAccountId(user: string): Promise<string | null> {
    return (await this.findAccount(user))?.id ?? null;
  }

  async authenticate(user: string, password: string): Promise<MailIdentity | null> {
    const account = await this.findAccount(user);
    const hash = account ? await this.deps.accounts.passwordHash(account.id) : null;
    // An unknown user costs as much time as a wrong password, so timing does not tell them apart.
    const valid = hash ? await verifyPassword(password, hash) : await verifyAgainstNothing(password);
    return account && valid ? { accountId: account.id, username: account.username, secret: null } : null;
  }

  async close(): Promise<void> {}

  async open(identity: MailIdentity): Promise<Mailbox> {
    return new LocalMailbox(this.deps.mail, this.deps.sender, identity, `${identity.username.toLowerCase()}@${this.deps.mailDomain}`);
  }

  private accountName(user: string): string {
    const suffix = `@${this.deps.mailDomain}`;
    return user.toLowerCase().endsWith(suffix.toLowerCase()) ? user.slice(0, -suffix.length) : user;
  }

  /** `alice` or `alice@<MAIL_DOMAIN>` names a local account; ids and other domains name none. */
  private async findAccount(user: string): Promise<Account | null> {
    const name = this.accountName(user);
    if (name === '' || name.includes('@')) return null;
    const account = await this.deps.accounts.findAccount(name);
    return account?.username.toLowerCase() === name.toLowerCase() ? account : null;
  }
}
