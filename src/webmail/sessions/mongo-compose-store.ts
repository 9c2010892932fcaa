import type { Collection, Db } from 'mongodb';
import { isKey, mongoCall } from '../../shared/mongo-connection.ts';
import type { ComposeDefaults, ComposeSession, ComposeStore } from './compose-store.ts';
import { newComposeId } from './random-strings.ts';
import { sessionKey } from './session-key.ts';

interface ComposeDoc {
  _id: string;
  /** The hash its session is stored under (session-key.ts). */
  sessionId: string;
  sending: boolean;
  defaults: ComposeDefaults;
}

const STORE = 'webmail compose IDs';

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
      return { id, defaults: copy };
    });
  }

  find(sessionId: string, id: string): Promise<ComposeSession | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(sessionId) || !isKey(id)) return null;
      const doc = await this.compose.findOne({ _id: id, sessionId: sessionKey(sessionId), sending: false });
      return doc ? { id: doc._id, defaults: doc.defaults } : null;
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

  finish(id: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id)) await this.compose.deleteOne({ _id: id });
    });
  }

  /** The connection belongs to the webmail stores that opened it. */
  async close(): Promise<void> {}
}
