import type { Readable } from 'node:stream';
import type { MailSearch } from './mail-search.ts';

/** What a folder is for, from IMAP's special-use attributes (RFC 6154) or the local store's fixed folders. */
export type FolderRole = 'inbox' | 'sent' | 'drafts' | 'trash' | 'junk';

export type MailFolder = { readonly path: string; readonly name: string; readonly role: FolderRole | null; readonly unread: number };

/** One line of a folder's message list. `uid` is unique within the folder and grows with arrival. */
export type MailHeader = {
  readonly uid: number;
  readonly folder: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string;
  /** ISO-8601 */
  readonly date: string;
  readonly seen: boolean;
  /** Flagged for attention (IMAP \\Flagged), as Roundcube's star. */
  readonly flagged: boolean;
};

export type MailAttachment = { readonly filename: string; readonly size: number; readonly contentType: string };

/**
 * How much of a message the reader shows (READING_LIMITS): `cut`, the text stops short; `unreadable`,
 * the parser gave up on it (the reason, for the log); past the listed attachments, how many more.
 * A cut or unreadable message offers its original for download.
 */
export type Shown = { readonly cut: boolean; readonly unreadable: string | null; readonly unlistedAttachments: number };

/** A message as the reader shows it: the text (HTML turned into text), and its attachments by name and size. */
export type MailMessage = MailHeader & {
  readonly body: string;
  readonly messageId: string;
  readonly references: readonly string[];
  readonly attachments: readonly MailAttachment[];
  readonly shown: Shown;
};

/** Roundcube's `_flag` values for `_action=mark`: \\Seen and \\Flagged set or cleared. */
export const MARKS = { read: ['seen', true], unread: ['seen', false], flagged: ['flagged', true], unflagged: ['flagged', false] } as const;
export type Mark = keyof typeof MARKS;
export const isMark = (value: string | undefined): value is Mark => value !== undefined && Object.hasOwn(MARKS, value);

/** A message as it was delivered, for the download of the original: to be read to its end before the mailbox closes. */
export type MailSource = { readonly subject: string; readonly content: Readable };

export type MailPage = { readonly total: number; readonly messages: readonly MailHeader[] };

/** What the compose form sends; the recipients are still the typed text. */
export type OutgoingMail = {
  readonly to: string;
  readonly cc: string;
  readonly subject: string;
  readonly body: string;
  /** The Message-ID answered, and the thread so far (RFC 5322 In-Reply-To and References). */
  readonly inReplyTo?: string | undefined;
  readonly references?: readonly string[] | undefined;
  /** Files attached: originals forwarded (`message/rfc822`, their bytes unchanged) and uploads (base64, their type). */
  readonly forwarded?: readonly ForwardedOriginal[] | undefined;
};

/** No `contentType`: an original forwarded as an attachment (`message/rfc822`). */
export type ForwardedOriginal = { readonly filename: string; readonly raw: Buffer; readonly contentType?: string | undefined };

/** `refused` is for the person composing (fix and send again); `relayFailed` also goes to the log. */
export type SendOutcome =
  /** `unsaved`: it went out, but the copy for Sent could not be kept (the reason, for the log). */
  | { readonly kind: 'sent'; readonly unsaved?: string | undefined }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'relayFailed'; readonly message: string };

/** Where the draft now is, or why it was not saved (for the person composing). */
export type DraftOutcome = { readonly kind: 'saved'; readonly folder: string; readonly uid: number } | { readonly kind: 'refused'; readonly message: string };

/**
 * The mail server could not be reached or failed mid-request (the adapters turn their drivers' errors
 * into this), so the webmail shows an error page and logs a line instead of answering 500.
 */
export class MailboxUnavailable extends Error {
  constructor(
    message: string,
    /** The errors.log type: Roundcube writes `IMAP Error: ...` for its storage server. */
    readonly logType: 'IMAP' | 'SMTP' | 'PHP' = 'IMAP',
  ) {
    super(message);
    this.name = 'MailboxUnavailable';
  }
}

/**
 * The mailbox port: one signed-in user's mail, opened for one request and closed after it. Every call
 * sees only that user's folders. Lists are newest first and bounded by `limit`.
 */
export interface Mailbox {
  /** The user's own address, the From of what they send. */
  readonly address: string;
  folders(): Promise<readonly MailFolder[]>;
  list(folder: string, offset: number, limit: number): Promise<MailPage>;
  /** The folder's messages matching the search (IMAP SEARCH; the local store's query), newest first. */
  search(folder: string, search: MailSearch, offset: number, limit: number): Promise<MailPage>;
  /** Messages that arrived after `uid`, newest first. */
  listNewerThan(folder: string, uid: number, limit: number): Promise<readonly MailHeader[]>;
  /** The message, parsed; with `markSeen` it is flagged as read. Null when there is no such message. */
  read(folder: string, uid: number, markSeen: boolean): Promise<MailMessage | null>;
  /** The original message, streamed; null when there is no such message. */
  source(folder: string, uid: number): Promise<MailSource | null>;
  unreadCount(folder: string): Promise<number>;
  /** Sets or clears \\Seen or \\Flagged. False when there is no such message. */
  mark(folder: string, uid: number, mark: Mark): Promise<boolean>;
  /** Moves the message to Trash (from Trash: deletes it). False when there is no such message. */
  remove(folder: string, uid: number): Promise<boolean>;
  /** `remove` for each uid (at most SELECTION_LIMITS.uids of them); how many there were. */
  removeAll(folder: string, uids: readonly number[]): Promise<number>;
  /** Moves those of the uids that are in `folder` to `target` (another of the user's folders); how many moved. */
  move(folder: string, uids: readonly number[], target: string): Promise<number>;
  send(mail: OutgoingMail): Promise<SendOutcome>;
  /**
   * Saves the message in the Drafts folder (IMAP: APPEND with \\Draft and \\Seen to the special-use Drafts;
   * the local store: its Drafts), then deletes the draft it replaces, as Roundcube's send.php with `_draft`.
   */
  saveDraft(mail: OutgoingMail, replacing: number | null): Promise<DraftOutcome>;
  /** Deletes a draft for good (sending it does); false when there is no such draft. */
  deleteDraft(uid: number): Promise<boolean>;
  /** A draft's attached files with their bytes, to resume it; null when there is no such draft. */
  draftFiles(uid: number): Promise<readonly ForwardedOriginal[] | null>;
  /** Addresses this user wrote to or heard from whose text contains `search`, most recent first. */
  correspondents(search: string, limit: number): Promise<readonly string[]>;
  close(): Promise<void>;
}

/** Who signed in, as the session keeps it. `secret` is what the adapter needs to open the mailbox again. */
export type MailIdentity = { readonly accountId: string; readonly username: string; readonly secret: string | null };

/** Signs users in and opens their mailboxes: the local accounts, or an IMAP server's users. */
export interface MailboxProvider {
  readonly kind: 'local' | 'imap';
  /** The rate limit's key for a login name, known or not, checked before the password is tried; null: an empty name. */
  rateLimitKey(user: string): Promise<string | null>;
  /** The service's account a login name names (its story records the failure); null for unknown names and IMAP users. */
  knownAccountId(user: string): Promise<string | null>;
  /** Null for a wrong password or unknown user; throws MailboxUnavailable when the server cannot say. */
  authenticate(user: string, password: string): Promise<MailIdentity | null>;
  open(identity: MailIdentity): Promise<Mailbox>;
  /** Ends what the provider keeps between requests (the IMAP reader's parser processes). */
  close(): Promise<void>;
}
