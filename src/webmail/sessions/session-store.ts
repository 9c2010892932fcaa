/** One browser's session: its request token, and the account once a login succeeded. */
export type WebmailSession = {
  readonly id: string;
  readonly requestToken: string;
  /** Set when the login page was shown in this session; a login POST without it is refused. */
  readonly loginPageShown: boolean;
  readonly accountId: string | null;
  readonly username: string | null;
  /**
   * The SHA-256 (hex) of the secret that must come back in the auth cookie on every request of a
   * logged-in session; the secret itself is known only when the session is made (`NewLogin`).
   */
  readonly authSecretHash: string | null;
  /** What the mailbox needs to open again on each request (the sealed IMAP password); null for local accounts. */
  readonly mailSecret: string | null;
  /** The compose ID most recently sent, so the Back button starts a new message instead of an error. */
  readonly lastComposeId: string | null;
};

export type NewSessionFields = Pick<WebmailSession, 'loginPageShown' | 'accountId' | 'username' | 'authSecretHash' | 'mailSecret'>;

/** A session just logged in, with its auth secret in clear for the cookie: stores keep only its hash. */
export type NewLogin = WebmailSession & { readonly authSecret: string };

/**
 * The session port. Ids and auth secrets are stored only as hashes (session-key.ts): `id` in what a
 * store answers is the id it was asked for, or made. Sessions outlive a restart like Roundcube's database sessions, and every API
 * process sees the same ones. A session not used for the idle time is gone: reading it deletes it, and
 * with it its compose IDs.
 */
export interface SessionStore {
  /** A fresh anonymous session with a new id and request token. */
  create(loginPageShown: boolean): Promise<WebmailSession>;
  /** The live session with this id, its idle timer restarted; null when unknown or expired. */
  find(id: string): Promise<WebmailSession | null>;
  /** Replaces a session by a logged-in one under a new id and token (no session fixation). */
  logIn(oldId: string, accountId: string, username: string, mailSecret?: string | null): Promise<NewLogin>;
  markLoginPageShown(id: string): Promise<void>;
  rememberSentCompose(id: string, composeId: string): Promise<void>;
  destroy(id: string): Promise<void>;
  close(): Promise<void>;
}
