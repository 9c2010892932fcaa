import type { MailSearch } from './mail-search.ts';

/** The folders every account has. */
export const FOLDERS = ['INBOX', 'Sent', 'Drafts', 'Trash'] as const;
export type Folder = (typeof FOLDERS)[number];

export const isFolder = (value: string): value is Folder => (FOLDERS as readonly string[]).includes(value);

/** Who a message is from and to, and what it is about: the part every copy of it shares. */
export type MessageEnvelope = {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string;
};

/** A message as it sits in one account's folder; `uid` is unique and grows with arrival. */
export type MessageHeader = MessageEnvelope & {
  readonly uid: number;
  readonly folder: Folder;
  /** ISO-8601 */
  readonly date: string;
  readonly seen: boolean;
  readonly flagged: boolean;
};

/**
 * A file the message carries, kept byte for byte with it: an original forwarded as an attachment
 * (no `contentType`: `message/rfc822`), or a file uploaded while composing (its type).
 */
export type StoredOriginal = { readonly filename: string; readonly raw: Buffer; readonly contentType?: string | undefined };

export type StoredMessage = MessageHeader & { readonly body: string; readonly messageId: string; readonly forwarded: readonly StoredOriginal[] };

/** One sent message: the sender's copy goes to Sent, each local recipient gets one in INBOX. */
export type Delivery = MessageEnvelope & {
  readonly messageId: string;
  readonly body: string;
  readonly forwarded?: readonly StoredOriginal[] | undefined;
  readonly date: string;
  readonly senderAccountId: string;
  readonly localRecipients: readonly { readonly accountId: string; readonly address: string }[];
};

/** A draft as the account saves it: only ever in its own Drafts. */
export type SavedDraftMessage = MessageEnvelope & {
  readonly messageId: string;
  readonly body: string;
  readonly forwarded: readonly StoredOriginal[];
  readonly date: string;
};

/**
 * Mailboxes of the local accounts. `deliver` is all-or-nothing and durable once it returns; every read
 * is scoped to one account, so no query can show another account's mail. Uids are unique across
 * the store (not per folder), so any process can hand them out.
 */
export interface MailStore {
  deliver(delivery: Delivery): Promise<{ readonly sentUid: number }>;
  /** Newest first, skipping the `offset` newest. */
  list(accountId: string, folder: Folder, limit: number, offset?: number): Promise<readonly MessageHeader[]>;
  count(accountId: string, folder: Folder): Promise<number>;
  /** The entries matching the search (any field contains its text, in any case), newest first, and how many match in all. */
  search(
    accountId: string,
    folder: Folder,
    search: MailSearch,
    limit: number,
    offset: number,
  ): Promise<{ readonly total: number; readonly messages: readonly MessageHeader[] }>;
  /** Files the draft in the account's Drafts (read, unflagged), and deletes the draft `replacing` there, in one step; the new uid. */
  saveDraft(accountId: string, draft: SavedDraftMessage, replacing: number | null): Promise<number>;
  /** Deletes the entry from the account's Drafts for good; false when there is none. */
  deleteDraft(accountId: string, uid: number): Promise<boolean>;
  /** Messages that arrived after `uid`, newest first. */
  listNewerThan(accountId: string, folder: Folder, uid: number, limit: number): Promise<readonly MessageHeader[]>;
  get(accountId: string, folder: Folder, uid: number): Promise<StoredMessage | null>;
  markSeen(accountId: string, uid: number): Promise<void>;
  /** Sets `seen` or `flagged` on the entry; false when there is none. */
  setFlag(accountId: string, folder: Folder, uid: number, flag: 'seen' | 'flagged', on: boolean): Promise<boolean>;
  unreadCount(accountId: string, folder: Folder): Promise<number>;
  /** Moves the entry to Trash, or out of the mailbox when it is in Trash already; false when there is none. */
  moveToTrash(accountId: string, folder: Folder, uid: number): Promise<boolean>;
  /** Moves the entry to another folder; false when there is none (or it is in `target` already). */
  moveTo(accountId: string, folder: Folder, uid: number, target: Folder): Promise<boolean>;
  /** Addresses this account wrote to or heard from whose text contains `search` (any case), most recent first. */
  correspondents(accountId: string, search: string, limit: number): Promise<readonly string[]>;
  close(): Promise<void>;
}
