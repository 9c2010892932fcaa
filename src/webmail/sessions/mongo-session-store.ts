import type { Collection, Db } from 'mongodb';
import { isKey, mongoCall } from '../../shared/mongo-connection.ts';
import { newRequestToken, newSessionId } from './random-strings.ts';
import { sessionKey } from './session-key.ts';
import type { NewLogin, NewSessionFields, SessionStore, WebmailSession } from './session-store.ts';

interface SessionDoc {
  /** The SHA-256 of the session id (session-key.ts). */
  _id: string;
  requestToken: string;
  loginPageShown: boolean;
  accountId: string | null;
  username: string | null;
  authSecretHash: string | null;
  /** Absent in sessions written before IMAP sign-in existed. */
  mailSecret?: string | null;
  lastComposeId: string | null;
  expiresAt: number;
}

const STORE = 'webmail sessions';

const toSession = (id: string, doc: SessionDoc): WebmailSession => ({
  id,
  requestToken: doc.requestToken,
  loginPageShown: doc.loginPageShown,
  accountId: doc.accountId,
  username: doc.username,
  authSecretHash: doc.authSecretHash,
  mailSecret: doc.mailSecret ?? null,
  lastComposeId: doc.lastComposeId,
});

/**
 * Sessions in the `webmail_sessions` collection under the hash of their id, their compose IDs in
 * `webmail_compose` naming that hash. There is no
 * transaction: logging in inserts the new session before deleting the old one, so a failure in between
 * leaves an extra anonymous session to expire, never a user without one.
 */
export class MongoSessionStore implements SessionStore {
  private readonly sessions: Collection<SessionDoc>;
  private readonly compose: Collection<{ _id: string; sessionId: string }>;

  constructor(
    db: Db,
    private readonly idleMillis: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sessions = db.collection('webmail_sessions');
    this.compose = db.collection('webmail_compose');
  }

  create(loginPageShown: boolean): Promise<WebmailSession> {
    return mongoCall(STORE, async () => {
      const expired = await this.sessions.find({ expiresAt: { $lte: this.now() } }, { projection: { _id: 1 } }).toArray();
      if (expired.length > 0) await this.removeAll(expired.map((doc) => doc._id));
      return this.insert({ loginPageShown, accountId: null, username: null, authSecretHash: null, mailSecret: null });
    });
  }

  find(id: string): Promise<WebmailSession | null> {
    return mongoCall(STORE, async () => {
      if (!isKey(id)) return null;
      const now = this.now();
      const key = sessionKey(id);
      const live = await this.sessions.findOneAndUpdate({ _id: key, expiresAt: { $gt: now } }, { $set: { expiresAt: now + this.idleMillis } });
      if (live) return toSession(id, live);
      await this.removeAll([key], { expiresAt: { $lte: now } });
      return null;
    });
  }

  logIn(oldId: string, accountId: string, username: string, mailSecret: string | null = null): Promise<NewLogin> {
    return mongoCall(STORE, async () => {
      const authSecret = newSessionId();
      const session = await this.insert({ loginPageShown: false, accountId, username, authSecretHash: sessionKey(authSecret), mailSecret });
      if (isKey(oldId)) await this.removeAll([sessionKey(oldId)]);
      return { ...session, authSecret };
    });
  }

  markLoginPageShown(id: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id)) await this.sessions.updateOne({ _id: sessionKey(id) }, { $set: { loginPageShown: true } });
    });
  }

  rememberSentCompose(id: string, composeId: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id) && isKey(composeId)) await this.sessions.updateOne({ _id: sessionKey(id) }, { $set: { lastComposeId: composeId } });
    });
  }

  destroy(id: string): Promise<void> {
    return mongoCall(STORE, async () => {
      if (isKey(id)) await this.removeAll([sessionKey(id)]);
    });
  }

  /** The connection belongs to the webmail stores that opened it. */
  async close(): Promise<void> {}

  /** Sessions first, then their compose IDs: a compose ID without its session can never be found again. Keys, not ids. */
  private async removeAll(ids: string[], guard: Record<string, unknown> = {}): Promise<void> {
    const removed = await this.sessions.deleteMany({ _id: { $in: ids }, ...guard });
    if (removed.deletedCount > 0) await this.compose.deleteMany({ sessionId: { $in: ids } });
  }

  private async insert(fields: NewSessionFields): Promise<WebmailSession> {
    const session: WebmailSession = { id: newSessionId(), requestToken: newRequestToken(), lastComposeId: null, ...fields };
    await this.sessions.insertOne({
      _id: sessionKey(session.id),
      requestToken: session.requestToken,
      loginPageShown: session.loginPageShown,
      accountId: session.accountId,
      username: session.username,
      authSecretHash: session.authSecretHash,
      mailSecret: session.mailSecret,
      lastComposeId: null,
      expiresAt: this.now() + this.idleMillis,
    });
    return session;
  }
}
