import type { SqliteDatabase } from '../../shared/sqlite.ts';
import { newRequestToken, newSessionId } from './random-strings.ts';

/** One browser's session: its request token, and the account once a login succeeded. */
export type WebmailSession = {
  readonly id: string;
  readonly requestToken: string;
  /** Set when the login page was shown in this session; a login POST without it is refused. */
  readonly loginPageShown: boolean;
  readonly accountId: string | null;
  readonly username: string | null;
  /** Must come back in the auth cookie on every request of a logged-in session. */
  readonly authSecret: string | null;
  /** The compose ID most recently sent, so the Back button starts a new message instead of an error. */
  readonly lastComposeId: string | null;
};

type SessionRow = {
  id: string;
  request_token: string;
  login_page_shown: number;
  account_id: string | null;
  username: string | null;
  auth_secret: string | null;
  last_compose_id: string | null;
  expires_at: number;
};

const toSession = (row: SessionRow): WebmailSession => ({
  id: row.id,
  requestToken: row.request_token,
  loginPageShown: row.login_page_shown === 1,
  accountId: row.account_id,
  username: row.username,
  authSecret: row.auth_secret,
  lastComposeId: row.last_compose_id,
});

/**
 * Sessions in SQLite, so they outlive a restart like Roundcube's database sessions. A session not used
 * for `idleMillis` is gone: reading it deletes it.
 */
export class SessionStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly idleMillis: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh anonymous session with a new id and request token. */
  create(loginPageShown: boolean): WebmailSession {
    this.db.prepare('DELETE FROM webmail_sessions WHERE expires_at <= ?').run(this.now());
    return this.insert({ loginPageShown, accountId: null, username: null, authSecret: null });
  }

  /** The live session with this id, its idle timer restarted; null when unknown or expired. */
  find(id: string): WebmailSession | null {
    const row = this.db.prepare<[string], SessionRow>('SELECT * FROM webmail_sessions WHERE id = ?').get(id);
    if (!row) return null;
    if (row.expires_at <= this.now()) {
      this.destroy(id);
      return null;
    }
    this.db.prepare('UPDATE webmail_sessions SET expires_at = ? WHERE id = ?').run(this.now() + this.idleMillis, id);
    return toSession(row);
  }

  /** Replaces a session by a logged-in one under a new id and token (no session fixation). */
  logIn(oldId: string, accountId: string, username: string): WebmailSession {
    return this.db.transaction(() => {
      this.destroy(oldId);
      return this.insert({ loginPageShown: false, accountId, username, authSecret: newSessionId() });
    })();
  }

  markLoginPageShown(id: string): void {
    this.db.prepare('UPDATE webmail_sessions SET login_page_shown = 1 WHERE id = ?').run(id);
  }

  rememberSentCompose(id: string, composeId: string): void {
    this.db.prepare('UPDATE webmail_sessions SET last_compose_id = ? WHERE id = ?').run(composeId, id);
  }

  destroy(id: string): void {
    this.db.prepare('DELETE FROM webmail_sessions WHERE id = ?').run(id);
  }

  private insert(fields: Pick<WebmailSession, 'loginPageShown' | 'accountId' | 'username' | 'authSecret'>): WebmailSession {
    const session: WebmailSession = { id: newSessionId(), requestToken: newRequestToken(), lastComposeId: null, ...fields };
    this.db
      .prepare(
        `INSERT INTO webmail_sessions (id, request_token, login_page_shown, account_id, username, auth_secret, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        session.id,
        session.requestToken,
        session.loginPageShown ? 1 : 0,
        session.accountId,
        session.username,
        session.authSecret,
        this.now() + this.idleMillis,
      );
    return session;
  }
}
