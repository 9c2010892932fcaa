import { randomUUID } from 'node:crypto';
import type { Binary, Collection, Db } from 'mongodb';
import { isKey, literalPattern, mongoCall } from '../../shared/mongo-connection.ts';
import type { Delivery, Folder, MailStore, MessageHeader, SavedDraftMessage, StoredMessage } from './mail-store.ts';
import { MAIL_UID_COUNTER } from './mongo-mail-schema.ts';
import type { MailSearch, SearchField } from './mail-search.ts';

/** The document fields each search field looks in (`to` is an array: a regex matches any element). */
const SEARCH_KEYS: Record<SearchField, keyof EntryDoc> = { subject: 'subject', from: 'from', to: 'to', body: 'body' };

/** One message in one account's folder; each copy carries the message, so a read is one document. */
interface EntryDoc {
  _id: number;
  accountId: string;
  folder: Folder;
  seen: boolean;
  /** Absent on entries written before flags were kept. */
  flagged?: boolean;
  delivery: string;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  date: string;
  body: string;
  messageId: string;
  /** Originals forwarded as attachments; absent when there are none. A Buffer is stored as BSON binary. */
  forwarded?: { filename: string; raw: Buffer | Binary; contentType?: string }[];
}

interface CorrespondentDoc {
  accountId: string;
  address: string;
  lastUsed: string;
}

const STORE = 'mail';

const toHeader = (doc: EntryDoc): MessageHeader => ({
  uid: doc._id,
  folder: doc.folder,
  from: doc.from,
  to: doc.to,
  cc: doc.cc,
  subject: doc.subject,
  date: doc.date,
  seen: doc.seen,
  flagged: doc.flagged === true,
});

const validUid = (uid: unknown): uid is number => Number.isSafeInteger(uid);

/**
 * Mail in MongoDB: `mailbox_entries` (the uid is the `_id`, handed out by a counter document, so uids
 * grow with arrival across every process) and `correspondents`. A delivery is one multi-document insert;
 * without a transaction a failure part-way is undone by deleting the delivery's entries, so a failed
 * send leaves nothing behind for the sender to see.
 */
export class MongoMailStore implements MailStore {
  private readonly entries: Collection<EntryDoc>;
  private readonly counters: Collection<{ _id: string; value: number }>;
  private readonly correspondentsOf: Collection<CorrespondentDoc>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    this.entries = db.collection('mailbox_entries');
    this.counters = db.collection('mail_counters');
    this.correspondentsOf = db.collection('correspondents');
  }

  deliver(delivery: Delivery): Promise<{ sentUid: number }> {
    return mongoCall(STORE, async () => {
      const recipients = [...new Set(delivery.localRecipients.map((r) => r.accountId))];
      const count = 1 + recipients.length;
      const counter = await this.counters.findOneAndUpdate({ _id: MAIL_UID_COUNTER }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' });
      const first = counter!.value - count + 1;
      const id = randomUUID();
      const message = {
        delivery: id,
        from: delivery.from,
        to: [...delivery.to],
        cc: [...delivery.cc],
        subject: delivery.subject,
        date: delivery.date,
        body: delivery.body,
        messageId: delivery.messageId,
        ...(delivery.forwarded?.length
          ? { forwarded: delivery.forwarded.map(({ filename, raw, contentType }) => ({ filename, raw, ...(contentType ? { contentType } : {}) })) }
          : {}),
      };
      const docs: EntryDoc[] = [
        { _id: first, accountId: delivery.senderAccountId, folder: 'Sent', seen: true, ...message },
        ...recipients.map((accountId, i) => ({ _id: first + 1 + i, accountId, folder: 'INBOX' as const, seen: false, ...message })),
      ];
      try {
        await this.entries.insertMany(docs, { ordered: true });
      } catch (error) {
        await this.entries.deleteMany({ delivery: id }).catch(() => {});
        throw error;
      }
      const remember = [
        ...recipients.map((accountId) => ({ accountId, address: delivery.from })),
        ...[...delivery.to, ...delivery.cc].map((address) => ({ accountId: delivery.senderAccountId, address })),
      ];
      for (const { accountId, address } of remember) {
        await this.correspondentsOf.updateOne({ accountId, address: address.toLowerCase() }, { $set: { lastUsed: delivery.date } }, { upsert: true });
      }
      return { sentUid: first };
    });
  }

  list(accountId: string, folder: Folder, limit: number, offset = 0): Promise<MessageHeader[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || limit <= 0) return [];
      const docs = await this.entries.find({ accountId, folder }).sort({ _id: -1 }).skip(Math.max(0, offset)).limit(limit).toArray();
      return docs.map(toHeader);
    });
  }

  count(accountId: string, folder: Folder): Promise<number> {
    return mongoCall(STORE, async () => (isKey(accountId) && isKey(folder) ? this.entries.countDocuments({ accountId, folder }) : 0));
  }

  search(accountId: string, folder: Folder, search: MailSearch, limit: number, offset: number): Promise<{ total: number; messages: MessageHeader[] }> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || typeof search.text !== 'string' || limit <= 0) return { total: 0, messages: [] };
      // The text is quoted (literalPattern), so it is matched as written, never run as a pattern.
      const pattern = { $regex: literalPattern(search.text), $options: 'i' };
      const filter = { accountId, folder, $or: search.fields.map((field) => ({ [SEARCH_KEYS[field]]: pattern })) };
      const total = await this.entries.countDocuments(filter);
      const docs = await this.entries.find(filter).sort({ _id: -1 }).skip(Math.max(0, offset)).limit(limit).toArray();
      return { total, messages: docs.map(toHeader) };
    });
  }

  saveDraft(accountId: string, draft: SavedDraftMessage, replacing: number | null): Promise<number> {
    return mongoCall(STORE, async () => {
      const counter = await this.counters.findOneAndUpdate({ _id: MAIL_UID_COUNTER }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
      const uid = counter!.value;
      const forwarded = draft.forwarded.map(({ filename, raw, contentType }) => ({ filename, raw, ...(contentType ? { contentType } : {}) }));
      await this.entries.insertOne({
        _id: uid,
        accountId,
        folder: 'Drafts',
        seen: true,
        delivery: randomUUID(),
        from: draft.from,
        to: [...draft.to],
        cc: [...draft.cc],
        subject: draft.subject,
        date: draft.date,
        body: draft.body,
        messageId: draft.messageId,
        ...(forwarded.length > 0 ? { forwarded } : {}),
      });
      // After the new one is stored: a failure between the two leaves two drafts, never none.
      if (replacing !== null && validUid(replacing)) await this.entries.deleteOne({ _id: replacing, accountId, folder: 'Drafts' });
      return uid;
    });
  }

  deleteDraft(accountId: string, uid: number): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !validUid(uid)) return false;
      return (await this.entries.deleteOne({ _id: uid, accountId, folder: 'Drafts' })).deletedCount > 0;
    });
  }

  moveToTrash(accountId: string, folder: Folder, uid: number): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || !validUid(uid)) return false;
      const filter = { _id: uid, accountId, folder };
      if (folder === 'Trash') return (await this.entries.deleteOne(filter)).deletedCount > 0;
      return (await this.entries.updateOne(filter, { $set: { folder: 'Trash' } })).matchedCount > 0;
    });
  }

  moveTo(accountId: string, folder: Folder, uid: number, target: Folder): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || !isKey(target) || folder === target || !validUid(uid)) return false;
      return (await this.entries.updateOne({ _id: uid, accountId, folder }, { $set: { folder: target } })).matchedCount > 0;
    });
  }

  listNewerThan(accountId: string, folder: Folder, uid: number, limit: number): Promise<MessageHeader[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || !validUid(uid) || limit <= 0) return [];
      const docs = await this.entries
        .find({ accountId, folder, _id: { $gt: uid } })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toHeader);
    });
  }

  get(accountId: string, folder: Folder, uid: number): Promise<StoredMessage | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder) || !validUid(uid)) return null;
      const doc = await this.entries.findOne({ _id: uid, accountId, folder });
      const forwarded = (doc?.forwarded ?? []).map(({ filename, raw, contentType }) => ({
        filename,
        raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw.read(0, raw.length())),
        ...(contentType ? { contentType } : {}),
      }));
      return doc ? { ...toHeader(doc), body: doc.body, messageId: doc.messageId, forwarded } : null;
    });
  }

  markSeen(accountId: string, uid: number): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(accountId) && validUid(uid)) await this.entries.updateOne({ _id: uid, accountId }, { $set: { seen: true } });
    });
  }

  setFlag(accountId: string, folder: Folder, uid: number, flag: 'seen' | 'flagged', on: boolean): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !validUid(uid)) return false;
      const set = flag === 'seen' ? { seen: on } : { flagged: on };
      return (await this.entries.updateOne({ _id: uid, accountId, folder }, { $set: set })).matchedCount > 0;
    });
  }

  unreadCount(accountId: string, folder: Folder): Promise<number> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(folder)) return 0;
      return this.entries.countDocuments({ accountId, folder, seen: false });
    });
  }

  correspondents(accountId: string, search: string, limit: number): Promise<string[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(accountId) || !isKey(search) || limit <= 0) return [];
      const docs = await this.correspondentsOf
        .find({ accountId, address: { $regex: literalPattern(search), $options: 'i' } })
        .sort({ lastUsed: -1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => doc.address);
    });
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
