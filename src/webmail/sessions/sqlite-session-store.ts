import type { SqliteDatabase } from '../../shared/sqlite.ts';
import { newRequestToken, newSessionId } from './random-strings.ts';
import { sessionKey } from './session-key.ts';
import type { NewLogin, NewSessionFields, SessionStore, WebmailSession } from './session-store.ts';

type SessionRow = {
  request_token: string;
  login_page_shown: number;
  account_id: string | null;
  username: string | null;
  auth_secret_hash: string | null;
  mail_secret: string | null;
  last_compose_id: string | null;
  expires_at: number;
};

const toSession = (id: string, row: SessionRow): WebmailSession => ({
  id,
  requestToken: row.request_token,
  loginPageShown: row.login_page_shown === 1,
  accountId: row.account_id,
  username: row.username,
  authSecretHash: row.auth_secret_hash,
  mailSecret: row.mail_secret,
  lastComposeId: row.last_compose_id,
});

/**
 * Sessions in `webmail-sessions.sqlite`, keyed by the hash of their id (session-key.ts); a session's
 * compose IDs go with it (ON DELETE CASCADE).
 */
export class SqliteSessionStore implements SessionStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly idleMillis: number,
    private readonly now: () => number = Date.now,
  ) {}

  async create(loginPageShown: boolean): Promise<WebmailSession> {
    this.db.prepare('DELETE FROM webmail_sessions WHERE expires_at <= ?').run(this.now());
    return this.insert({ loginPageShown, accountId: null, username: null, authSecretHash: null, mailSecret: null });
  }

  async find(id: string): Promise<WebmailSession | null> {
    const key = sessionKey(String(id));
    const row = this.db.prepare<[string], SessionRow>('SELECT * FROM webmail_sessions WHERE id = ?').get(key);
    if (!row) return null;
    if (row.expires_at <= this.now()) {
      await this.destroy(id);
      return null;
    }
    this.db.prepare('UPDATE webmail_sessions SET expires_at = ? WHERE id = ?').run(this.now() + this.idleMillis, key);
    return toSession(id, row);
  }

  async logIn(oldId: string, accountId: string, username: string, mailSecret: string | null = null): Promise<NewLogin> {
    const authSecret = newSessionId();
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM webmail_sessions WHERE id = ?').run(sessionKey(String(oldId)));
      const session = this.insert({ loginPageShown: false, accountId, username, authSecretHash: sessionKey(authSecret), mailSecret });
      return { ...session, authSecret };
    })();
  }

  async markLoginPageShown(id: string): Promise<void> {
    this.db.prepare('UPDATE webmail_sessions SET login_page_shown = 1 WHERE id = ?').run(sessionKey(String(id)));
  }

  async rememberSentCompose(id: string, composeId: string): Promise<void> {
    this.db.prepare('UPDATE webmail_sessions SET last_compose_id = ? WHERE id = ?').run(String(composeId), sessionKey(String(id)));
  }

  async destroy(id: string): Promise<void> {
    this.db.prepare('DELETE FROM webmail_sessions WHERE id = ?').run(sessionKey(String(id)));
  }

  /** The database belongs to whoever opened it (it also holds compose IDs and login counters). */
  async close(): Promise<void> {}

  private insert(fields: NewSessionFields): WebmailSession {
    const session: WebmailSession = { id: newSessionId(), requestToken: newRequestToken(), lastComposeId: null, ...fields };
    this.db
      .prepare(
        `INSERT INTO webmail_sessions (id, request_token, login_page_shown, account_id, username, auth_secret_hash, mail_secret, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sessionKey(session.id),
        session.requestToken,
        session.loginPageShown ? 1 : 0,
        session.accountId,
        session.username,
        session.authSecretHash,
        session.mailSecret,
        this.now() + this.idleMillis,
      );
    return session;
  }
}
