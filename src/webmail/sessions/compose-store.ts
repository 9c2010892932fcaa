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

/** Where this compose ID's last saved draft is (Roundcube's `draft_uid`): the save after it replaces it, the send removes it. */
export type SavedDraft = { readonly folder: string; readonly uid: number };

export type ComposeSession = { readonly id: string; readonly defaults: ComposeDefaults; readonly draft: SavedDraft | null };

/** A file uploaded into a compose ID (Roundcube's `compose_data_<ID>['attachments']`), by name and size. */
export type ComposeAttachment = { readonly id: string; readonly filename: string; readonly contentType: string; readonly size: number };
export type AttachedFile = ComposeAttachment & { readonly content: Buffer };
export type NewAttachment = Omit<AttachedFile, 'id' | 'size'>;
/** The most one compose ID holds: `attach` refuses a file past either. */
export type AttachmentRoom = { readonly files: number; readonly totalBytes: number };

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
  /**
   * Adds a file to the session's open compose ID; `full` when it would then hold more files or bytes
   * than `room` allows (checked and added in one step, so parallel uploads cannot pass it), null when
   * the ID is not open.
   */
  attach(sessionId: string, id: string, file: NewAttachment, room: AttachmentRoom): Promise<ComposeAttachment | 'full' | null>;
  /** The files of the session's compose ID, in upload order (an unknown ID has none). */
  attachments(sessionId: string, id: string): Promise<readonly ComposeAttachment[]>;
  /** The same with their bytes, for sending or saving a draft. */
  attachedFiles(sessionId: string, id: string): Promise<readonly AttachedFile[]>;
  /** Removes one file; false when the open ID has no such file. */
  detach(sessionId: string, id: string, attachmentId: string): Promise<boolean>;
  /** Records where the ID's draft was saved last (replacing the one before). */
  keepDraft(sessionId: string, id: string, draft: SavedDraft): Promise<void>;
  /** The message went out: the ID can never send again. */
  finish(id: string): Promise<void>;
  close(): Promise<void>;
}
