import { Binary, type Collection, type Db } from 'mongodb';
import { isKey, mongoCall } from '../../shared/mongo-connection.ts';
import type {
  AttachedFile,
  AttachmentRoom,
  ComposeAttachment,
  ComposeDefaults,
  ComposeSession,
  ComposeStore,
  NewAttachment,
  SavedDraft,
} from './compose-store.ts';
import { newAttachmentId, newComposeId } from './random-strings.ts';
import { sessionKey } from './session-key.ts';

type AttachmentDoc = ComposeAttachment & { content: Binary };

interface ComposeDoc {
  _id: string;
  /** The hash its session is stored under (session-key.ts). */
  sessionId: string;
  sending: boolean;
  defaults: ComposeDefaults;
  draft?: SavedDraft | null;
  /** Inside the ID's document (at most UPLOAD_LIMITS.totalBytes, far below BSON's 16 MB), counted beside it for the guarded push. */
  attachments?: AttachmentDoc[];
  attachedFiles?: number;
  attachedBytes?: number;
}

const STORE = 'webmail compose IDs';
const NO_CONTENT = { projection: { 'attachments.content': 0 } } as const;
const described = ({ id, filename, contentType, size }: ComposeAttachment): ComposeAttachment => ({ id, filename, contentType, size });

/** Compose IDs in `webmail_compose`; `claim` is one guarded update, so only one process can take an ID. */
export class MongoComposeStore implements ComposeStore {
  private readonly compose: Collection<ComposeDoc>;

  constructor(db: Db) {
    this.compose = db.collection('webmail_compose');
  }

  open(sessionId: string, defaults: ComposeDefaults): Promise<ComposeSession> {
    return mongoCall(STORE, async () => {
      const id = newComposeId();
      const thread = defaults.inReplyTo ? { inReplyTo: defaults.inReplyTo, references: [...(defaults.references ?? [])] } : {};
      const attached = defaults.forwardAttachment ? { forwardAttachment: { ...defaults.forwardAttachment } } : {};
      const copy = { to: defaults.to, cc: defaults.cc, subject: defaults.subject, body: defaults.body, ...thread, ...attached };
      await this.compose.insertOne({ _id: id, sessionId: sessionKey(sessionId), sending: false, defaults: copy });
      return { id, defaults: copy, draft: null };
    });
  }

  find(sessionId: string, id: string): Promise<ComposeSession | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return null;
      const doc = await this.compose.findOne({ _id: id, sessionId: sessionKey(sessionId), sending: false }, NO_CONTENT);
      return doc ? { id: doc._id, defaults: doc.defaults, draft: doc.draft ?? null } : null;
    });
  }

  claim(sessionId: string, id: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return false;
      const result = await this.compose.updateOne({ _id: id, sessionId: sessionKey(sessionId), sending: false }, { $set: { sending: true } });
      return result.modifiedCount === 1;
    });
  }

  release(id: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id)) await this.compose.updateOne({ _id: id }, { $set: { sending: false } });
    });
  }

  attach(sessionId: string, id: string, file: NewAttachment, room: AttachmentRoom): Promise<ComposeAttachment | 'full' | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return null;
      const added: ComposeAttachment = { id: newAttachmentId(), filename: file.filename, contentType: file.contentType, size: file.content.length };
      const owned = { _id: id, sessionId: sessionKey(sessionId), sending: false };
      // A first file finds no counters to compare: it is held to the room here.
      if (room.files < 1 || added.size > room.totalBytes) return (await this.compose.countDocuments(owned, { limit: 1 })) === 1 ? 'full' : null;
      // One guarded update: the room is checked on the document as it is, so parallel uploads cannot pass it.
      const result = await this.compose.updateOne(
        {
          ...owned,
          $and: [
            { $or: [{ attachedFiles: { $exists: false } }, { attachedFiles: { $lte: room.files - 1 } }] },
            { $or: [{ attachedBytes: { $exists: false } }, { attachedBytes: { $lte: room.totalBytes - added.size } }] },
          ],
        },
        { $push: { attachments: { ...added, content: new Binary(file.content) } }, $inc: { attachedFiles: 1, attachedBytes: added.size } },
      );
      if (result.modifiedCount === 1) return added;
      return (await this.compose.countDocuments(owned, { limit: 1 })) === 1 ? 'full' : null;
    });
  }

  attachments(sessionId: string, id: string): Promise<readonly ComposeAttachment[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return [];
      const doc = await this.compose.findOne({ _id: id, sessionId: sessionKey(sessionId) }, NO_CONTENT);
      return (doc?.attachments ?? []).map(described);
    });
  }

  attachedFiles(sessionId: string, id: string): Promise<readonly AttachedFile[]> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return [];
      const doc = await this.compose.findOne({ _id: id, sessionId: sessionKey(sessionId) });
      return (doc?.attachments ?? []).map((file) => ({ ...described(file), content: Buffer.from(file.content.buffer) }));
    });
  }

  detach(sessionId: string, id: string, attachmentId: string): Promise<boolean> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id) || !isKey(attachmentId)) return false;
      const owned = { _id: id, sessionId: sessionKey(sessionId), sending: false };
      const doc = await this.compose.findOne({ ...owned, 'attachments.id': attachmentId }, NO_CONTENT);
      const size = doc?.attachments?.find((file) => file.id === attachmentId)?.size;
      if (size === undefined) return false;
      const result = await this.compose.updateOne(
        { ...owned, 'attachments.id': attachmentId },
        { $pull: { attachments: { id: attachmentId } }, $inc: { attachedFiles: -1, attachedBytes: -size } },
      );
      return result.modifiedCount === 1;
    });
  }

  keepDraft(sessionId: string, id: string, draft: SavedDraft): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(sessionId) && isKey(id)) await this.compose.updateOne({ _id: id, sessionId: sessionKey(sessionId) }, { $set: { draft: { ...draft } } });
    });
  }

  finish(id: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id)) await this.compose.deleteOne({ _id: id });
    });
  }

  /** The connection belongs to the webmail stores that opened it. */
  async close(): Promise<void> {}
}
