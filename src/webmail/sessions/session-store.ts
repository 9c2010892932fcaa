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
  /** What the mailbox needs to open again on each request (the sealed IMAP password); null for local accounts. */
  readonly mailSecret: string | null;
  /** The compose ID most recently sent, so the Back button starts a new message instead of an error. */
  readonly lastComposeId: string | null;
};

export type NewSessionFields = Pick<WebmailSession, 'loginPageShown' | 'accountId' | 'username' | 'authSecret' | 'mailSecret'>;

/**
 * The session port. Sessions outlive a restart like Roundcube's database sessions, and every API
 * process sees the same ones. A session not used for the idle time is gone: reading it deletes it, and
 * with it its compose IDs.
 */
export interface SessionStore {
  /** A fresh anonymous session with a new id and request token. */
  create(loginPageShown: boolean): Promise<WebmailSession>;
  /** The live session with this id, its idle timer restarted; null when unknown or expired. */
  find(id: string): Promise<WebmailSession | null>;
  /** Replaces a session by a logged-in one under a new id and token (no session fixation). */
  logIn(oldId: string, accountId: string, username: string, mailSecret?: string | null): Promise<WebmailSession>;
  markLoginPageShown(id: string): Promise<void>;
  rememberSentCompose(id: string, composeId: string): Promise<void>;
  destroy(id: string): Promise<void>;
  close(): Promise<void>;
}
