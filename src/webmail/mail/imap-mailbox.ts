import type { FetchMessageObject, ImapFlow, MessageAddressObject } from 'imapflow';
import { isRefusal, unavailable, type ImapServer } from './imap-connection.ts';
import type { ImapOutbox } from './imap-outbox.ts';
import {
  MARKS,
  type FolderRole,
  type Mark,
  type MailFolder,
  type MailHeader,
  type Mailbox,
  type MailMessage,
  type MailPage,
  type MailSource,
  type OutgoingMail,
  type SendOutcome,
  type DraftOutcome,
  type ForwardedOriginal,
} from './mailbox.ts';
import { deleteImapDraft, draftsFolder, imapDraftFiles, saveImapDraft } from './imap-drafts.ts';
import type { MessageParser } from './message-parser.ts';
import type { MailSearch, SearchField } from './mail-search.ts';
import { READING_LIMITS } from './reading-limits.ts';
import { readerView } from './reader-view.ts';

const ROLES: Record<string, FolderRole> = { '\\Inbox': 'inbox', '\\Sent': 'sent', '\\Drafts': 'drafts', '\\Trash': 'trash', '\\Junk': 'junk' };
/** A source is fetched (to read it, or to download the original) in pieces this large: one round trip each. */
const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;
/** IMAP SEARCH keys (RFC 3501 6.4.4) for each search field, as imapflow names them. */
const SEARCH_KEYS: Record<SearchField, string> = { subject: 'subject', from: 'from', to: 'to', body: 'body' };
const HEADER_QUERY = { uid: true, flags: true, envelope: true, internalDate: true } as const;

const addressList = (list: MessageAddressObject[] | undefined): string[] => (list ?? []).map((entry) => entry.address ?? entry.name ?? '').filter(Boolean);

function toHeader(folder: string, message: FetchMessageObject): MailHeader {
  const envelope = message.envelope;
  const date = new Date(envelope?.date ?? message.internalDate ?? 0);
  return {
    uid: message.uid,
    folder,
    from: addressList(envelope?.from)[0] ?? '',
    to: addressList(envelope?.to),
    cc: addressList(envelope?.cc),
    subject: envelope?.subject ?? '',
    date: date.toISOString(),
    seen: message.flags?.has('\\Seen') ?? false,
    flagged: message.flags?.has('\\Flagged') ?? false,
  };
}

/**
 * One user's mailbox on the IMAP server, over one connection that lives for one request. Every call
 * names its folder; a folder or message the server says NO to is "not found", anything else is
 * MailboxUnavailable.
 */
export class ImapMailbox implements Mailbox {
  constructor(
    private readonly client: ImapFlow,
    private readonly server: ImapServer,
    private readonly outbox: ImapOutbox | null,
    private readonly parser: MessageParser,
    readonly address: string,
    private readonly mailDomain: string,
  ) {}

  folders(): Promise<MailFolder[]> {
    return this.call(async () => {
      const listed = await this.client.list({ statusQuery: { unseen: true } });
      return listed
        .filter((entry) => !entry.flags.has('\\Noselect'))
        .map((entry) => ({
          path: entry.path,
          name: entry.path === 'INBOX' ? 'Inbox' : entry.name,
          role: entry.path === 'INBOX' ? 'inbox' : (ROLES[entry.specialUse ?? ''] ?? null),
          unread: entry.status?.unseen ?? 0,
        }));
    });
  }

  list(folder: string, offset: number, limit: number): Promise<MailPage> {
    return this.call(async () => {
      const opened = await this.open(folder, true);
      if (!opened) return { total: 0, messages: [] };
      const total = opened.exists;
      // Sequence numbers follow UID order, so the newest are the highest numbers: one bounded FETCH.
      const last = total - offset;
      if (last < 1 || limit < 1) return { total, messages: [] };
      const first = Math.max(1, last - limit + 1);
      const fetched = await this.client.fetchAll(`${first}:${last}`, HEADER_QUERY);
      return { total, messages: fetched.map((message) => toHeader(folder, message)).sort((a, b) => b.uid - a.uid) };
    });
  }

  /** One UID SEARCH (the fields ORed), then one FETCH of the page's uids. */
  search(folder: string, search: MailSearch, offset: number, limit: number): Promise<MailPage> {
    return this.call(async () => {
      if (!(await this.open(folder, true))) return { total: 0, messages: [] };
      const terms = search.fields.map((field) => ({ [SEARCH_KEYS[field]]: search.text }));
      const query = terms.length === 1 ? terms[0]! : { or: terms };
      const uids = ((await this.client.search(query, { uid: true })) || []).sort((a, b) => b - a);
      const page = uids.slice(offset, offset + limit);
      if (page.length === 0) return { total: uids.length, messages: [] };
      const fetched = await this.client.fetchAll(page.join(','), HEADER_QUERY, { uid: true });
      return { total: uids.length, messages: fetched.map((message) => toHeader(folder, message)).sort((a, b) => b.uid - a.uid) };
    });
  }

  listNewerThan(folder: string, uid: number, limit: number): Promise<MailHeader[]> {
    return this.call(async () => {
      if (!(await this.open(folder, true))) return [];
      // `n:*` always includes the last message, even below n: keep only the really newer ones.
      const uids = ((await this.client.search({ uid: `${uid + 1}:*` }, { uid: true })) || []).filter((found) => found > uid);
      const newest = uids.sort((a, b) => a - b).slice(-limit);
      if (newest.length === 0) return [];
      const fetched = await this.client.fetchAll(newest.join(','), HEADER_QUERY, { uid: true });
      return fetched.map((message) => toHeader(folder, message)).sort((a, b) => b.uid - a.uid);
    });
  }

  /**
   * The header comes from the server's ENVELOPE, so it shows whatever the parser makes of the body. The
   * source is fetched only as far as READING_LIMITS allow, and only when the parser has room for it
   * (its turn); a message the parser gives up on is unreadable, not a failed server.
   */
  read(folder: string, uid: number, markSeen: boolean): Promise<MailMessage | null> {
    return this.call(async () => {
      if (!(await this.open(folder, !markSeen))) return null;
      const found = await this.client.fetchOne(String(uid), { ...HEADER_QUERY, size: true }, { uid: true });
      if (!found || found.uid !== uid) return null;
      // In chunks, each handed on to the parser as it comes: a 24 MB source fetched whole was one literal,
      // joined in one piece on the event loop, and held in full until parsed.
      const outcome = await this.parser.parse(found.size ?? READING_LIMITS.sourceBytes, async () => {
        const { content } = await this.client.download(String(uid), undefined, {
          uid: true,
          chunkSize: DOWNLOAD_CHUNK_BYTES,
          maxBytes: READING_LIMITS.sourceBytes,
        });
        return content ?? Buffer.alloc(0);
      });
      if (markSeen && !found.flags?.has('\\Seen')) await this.client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
      const header = { ...toHeader(folder, found), seen: markSeen || (found.flags?.has('\\Seen') ?? false) };
      return readerView(header, outcome);
    });
  }

  source(folder: string, uid: number): Promise<MailSource | null> {
    return this.call(async () => {
      if (!(await this.open(folder, true))) return null;
      const found = await this.client.fetchOne(String(uid), { uid: true, envelope: true }, { uid: true });
      if (!found || found.uid !== uid) return null;
      const { content } = await this.client.download(String(uid), undefined, { uid: true, chunkSize: DOWNLOAD_CHUNK_BYTES });
      return content ? { subject: found.envelope?.subject ?? '', content } : null;
    });
  }

  mark(folder: string, uid: number, mark: Mark): Promise<boolean> {
    return this.call(async () => {
      if (!(await this.open(folder, false))) return false;
      // UID STORE on a uid that is gone answers OK: the FETCH first tells "not found" from done.
      const found = await this.client.fetchOne(String(uid), { uid: true }, { uid: true });
      if (!found || found.uid !== uid) return false;
      const [flag, on] = MARKS[mark];
      const imapFlag = flag === 'seen' ? '\\Seen' : '\\Flagged';
      if (on) await this.client.messageFlagsAdd(String(uid), [imapFlag], { uid: true });
      else await this.client.messageFlagsRemove(String(uid), [imapFlag], { uid: true });
      return true;
    });
  }

  unreadCount(folder: string): Promise<number> {
    return this.call(async () => {
      try {
        const status = await this.client.status(folder, { unseen: true });
        return status ? (status.unseen ?? 0) : 0;
      } catch (error) {
        if (isRefusal(error)) return 0;
        throw error;
      }
    });
  }

  remove(folder: string, uid: number): Promise<boolean> {
    return this.call(async () => {
      const trash = (await this.folders()).find((entry) => entry.role === 'trash');
      if (!(await this.open(folder, false))) return false;
      const exists = ((await this.client.search({ uid: String(uid) }, { uid: true })) || []).includes(uid);
      if (!exists) return false;
      if (!trash || trash.path === folder) return this.client.messageDelete(String(uid), { uid: true });
      return Boolean(await this.client.messageMove(String(uid), trash.path, { uid: true }));
    });
  }

  /** One UID SEARCH for those still there, then one UID MOVE (or, in Trash, one expunge) for all of them. */
  removeAll(folder: string, uids: readonly number[]): Promise<number> {
    return this.call(async () => {
      const trash = (await this.folders()).find((entry) => entry.role === 'trash');
      if (!trash || trash.path === folder) {
        const there = await this.present(folder, uids);
        if (there.length > 0) await this.client.messageDelete(there.join(','), { uid: true });
        return there.length;
      }
      return this.moveThere(folder, uids, trash.path);
    });
  }

  move(folder: string, uids: readonly number[], target: string): Promise<number> {
    return this.call(async () => {
      if (folder === target || !(await this.folders()).some((entry) => entry.path === target)) return 0;
      return this.moveThere(folder, uids, target);
    });
  }

  send(mail: OutgoingMail): Promise<SendOutcome> {
    const outbox = this.outbox;
    if (!outbox) return Promise.resolve({ kind: 'refused', message: 'Sending is not set up on this server (no SMTP_URL is configured).' });
    return this.call(async () => {
      const sent = (await this.folders()).find((entry) => entry.role === 'sent');
      return outbox.send(mail, this.address, (raw) => (sent ? this.client.append(sent.path, raw, ['\\Seen']).then(() => undefined) : Promise.resolve()));
    });
  }

  saveDraft(mail: OutgoingMail, replacing: number | null): Promise<DraftOutcome> {
    return this.call(async () => saveImapDraft(this.client, draftsFolder(await this.folders()), mail, this.address, this.mailDomain, replacing));
  }

  deleteDraft(uid: number): Promise<boolean> {
    return this.call(async () => deleteImapDraft(this.client, draftsFolder(await this.folders()), uid));
  }

  draftFiles(uid: number): Promise<ForwardedOriginal[] | null> {
    return this.call(async () => imapDraftFiles(this.client, draftsFolder(await this.folders()), uid));
  }

  correspondents(search: string, limit: number): Promise<string[]> {
    return this.call(async () => {
      const needle = search.toLowerCase();
      const found: string[] = [];
      for (const folder of (await this.folders()).filter((entry) => entry.role === 'sent' || entry.role === 'inbox')) {
        const field = folder.role === 'sent' ? 'to' : 'from';
        if (!(await this.open(folder.path, true))) continue;
        const uids = ((await this.client.search({ [field]: search }, { uid: true })) || []).sort((a, b) => a - b).slice(-limit);
        if (uids.length === 0) continue;
        for (const message of (await this.client.fetchAll(uids.join(','), HEADER_QUERY, { uid: true })).reverse()) {
          const addresses =
            folder.role === 'sent' ? [...toHeader(folder.path, message).to, ...toHeader(folder.path, message).cc] : [toHeader(folder.path, message).from];
          for (const address of addresses.map((a) => a.toLowerCase())) if (address.includes(needle) && !found.includes(address)) found.push(address);
        }
      }
      return found.slice(0, limit);
    });
  }

  async close(): Promise<void> {
    await this.client.logout().catch(() => this.client.close());
  }

  /** Of the uids, those in the folder (opened for writing); none when there is no such folder. */
  private async present(folder: string, uids: readonly number[]): Promise<number[]> {
    if (uids.length === 0 || !(await this.open(folder, false))) return [];
    // UID MOVE and STORE on uids that are gone answer OK: the search tells how many there were.
    return ((await this.client.search({ uid: uids.join(',') }, { uid: true })) || []).filter((uid) => uids.includes(uid));
  }

  private async moveThere(folder: string, uids: readonly number[], target: string): Promise<number> {
    const there = await this.present(folder, uids);
    if (there.length > 0) await this.client.messageMove(there.join(','), target, { uid: true });
    return there.length;
  }

  /** Selects the folder; false when the server has no such folder. */
  private async open(folder: string, readOnly: boolean): Promise<{ exists: number } | null> {
    try {
      return await this.client.mailboxOpen(folder, { readOnly });
    } catch (error) {
      if (isRefusal(error)) return null;
      throw error;
    }
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw unavailable(this.server, error);
    }
  }
}
