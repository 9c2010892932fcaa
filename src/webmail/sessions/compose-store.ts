/** What a new message starts with (a reply fills these in). */
export type ComposeDefaults = {
  readonly to: string;
  readonly cc: string;
  readonly subject: string;
  readonly body: string;
  /** A reply's thread: the Message-ID answered and its References, sent on as In-Reply-To and References. */
  readonly inReplyTo?: string | undefined;
  readonly references?: readonly string[] | undefined;
  /** Forward as attachment: the original, fetched again when sending, attached as `filename` (subject.eml). */
  readonly forwardAttachment?: { readonly folder: string; readonly uid: number; readonly filename: string } | undefined;
};

export type ComposeSession = { readonly id: string; readonly defaults: ComposeDefaults };

/**
 * Compose IDs, kept beside the session (as Roundcube's compose_data_<ID>). An ID belongs to one session
 * and sends one message: `claim` takes it atomically, so a double submit or a second tab (on any API
 * process) finds it already in use and gets "Invalid compose ID" instead of sending twice.
 */
export interface ComposeStore {
  open(sessionId: string, defaults: ComposeDefaults): Promise<ComposeSession>;
  /** The session's compose ID that is open for editing, or null. */
  find(sessionId: string, id: string): Promise<ComposeSession | null>;
  /** Marks the ID as being sent; false when it is unknown, another session's, or already taken. */
  claim(sessionId: string, id: string): Promise<boolean>;
  /** The send failed (a refused recipient): the form stays open and may be sent again. */
  release(id: string): Promise<void>;
  /** The message went out: the ID can never send again. */
  finish(id: string): Promise<void>;
  close(): Promise<void>;
}
