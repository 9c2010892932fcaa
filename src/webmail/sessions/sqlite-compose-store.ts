import type { SqliteDatabase } from '../../shared/sqlite.ts';
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

type ComposeRow = { id: string; defaults: string; draft_folder: string | null; draft_uid: number | null };
type AttachmentRow = { id: string; filename: string; content_type: string; size: number };

const OPEN = 'SELECT 1 FROM webmail_compose WHERE id = ? AND session_id = ? AND sending = 0';
const attachment = (row: AttachmentRow): ComposeAttachment => ({ id: row.id, filename: row.filename, contentType: row.content_type, size: row.size });

/** Compose IDs in `webmail-sessions.sqlite`, beside their session (named by the hash of its id, as it is stored). */
export class SqliteComposeStore implements ComposeStore {
  constructor(private readonly db: SqliteDatabase) {}

  async open(sessionId: string, defaults: ComposeDefaults): Promise<ComposeSession> {
    const id = newComposeId();
    this.db.prepare('INSERT INTO webmail_compose (id, session_id, defaults) VALUES (?, ?, ?)').run(id, sessionKey(String(sessionId)), JSON.stringify(defaults));
    return { id, defaults, draft: null };
  }

  async find(sessionId: string, id: string): Promise<ComposeSession | null> {
    const row = this.db
      .prepare<[string, string], ComposeRow>(
        'SELECT id, defaults, draft_folder, draft_uid FROM webmail_compose WHERE id = ? AND session_id = ? AND sending = 0',
      )
      .get(String(id), sessionKey(String(sessionId)));
    if (!row) return null;
    const draft = row.draft_folder !== null && row.draft_uid !== null ? { folder: row.draft_folder, uid: row.draft_uid } : null;
    return { id: row.id, defaults: JSON.parse(row.defaults) as ComposeDefaults, draft };
  }

  async claim(sessionId: string, id: string): Promise<boolean> {
    return (
      this.db.prepare('UPDATE webmail_compose SET sending = 1 WHERE id = ? AND session_id = ? AND sending = 0').run(String(id), sessionKey(String(sessionId)))
        .changes === 1
    );
  }

  async release(id: string): Promise<void> {
    this.db.prepare('UPDATE webmail_compose SET sending = 0 WHERE id = ?').run(String(id));
  }

  async attach(sessionId: string, id: string, file: NewAttachment, room: AttachmentRoom): Promise<ComposeAttachment | 'full' | null> {
    // One transaction: the room is counted and the file added with no other upload in between.
    return this.db
      .transaction((): ComposeAttachment | 'full' | null => {
        if (!this.db.prepare(OPEN).get(String(id), sessionKey(String(sessionId)))) return null;
        const used = this.db
          .prepare<[string], { files: number; bytes: number; seq: number }>(
            'SELECT COUNT(*) AS files, COALESCE(SUM(size), 0) AS bytes, COALESCE(MAX(seq), 0) AS seq FROM webmail_compose_attachments WHERE compose_id = ?',
          )
          .get(String(id))!;
        if (used.files + 1 > room.files || used.bytes + file.content.length > room.totalBytes) return 'full';
        const added = { id: newAttachmentId(), filename: file.filename, contentType: file.contentType, size: file.content.length };
        this.db
          .prepare('INSERT INTO webmail_compose_attachments (compose_id, id, seq, filename, content_type, size, content) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(String(id), added.id, used.seq + 1, added.filename, added.contentType, added.size, file.content);
        return added;
      })
      .immediate();
  }

  async attachments(sessionId: string, id: string): Promise<readonly ComposeAttachment[]> {
    return this.rows<AttachmentRow>('a.id, a.filename, a.content_type, a.size', sessionId, id).map(attachment);
  }

  async attachedFiles(sessionId: string, id: string): Promise<readonly AttachedFile[]> {
    return this.rows<AttachmentRow & { content: Buffer }>('a.id, a.filename, a.content_type, a.size, a.content', sessionId, id).map((row) => ({
      ...attachment(row),
      content: row.content,
    }));
  }

  async detach(sessionId: string, id: string, attachmentId: string): Promise<boolean> {
    const result = this.db
      .prepare(
        `DELETE FROM webmail_compose_attachments WHERE compose_id = ? AND id = ?
         AND EXISTS (SELECT 1 FROM webmail_compose c WHERE c.id = compose_id AND c.session_id = ? AND c.sending = 0)`,
      )
      .run(String(id), String(attachmentId), sessionKey(String(sessionId)));
    return result.changes === 1;
  }

  async keepDraft(sessionId: string, id: string, draft: SavedDraft): Promise<void> {
    this.db
      .prepare('UPDATE webmail_compose SET draft_folder = ?, draft_uid = ? WHERE id = ? AND session_id = ?')
      .run(draft.folder, draft.uid, String(id), sessionKey(String(sessionId)));
  }

  async finish(id: string): Promise<void> {
    this.db.prepare('DELETE FROM webmail_compose WHERE id = ?').run(String(id));
  }

  /** The database belongs to whoever opened it. */
  async close(): Promise<void> {}

  /** The files of a compose ID that belongs to the session (sending or not: the send reads them after its claim). */
  private rows<Row>(columns: string, sessionId: string, id: string): Row[] {
    return this.db
      .prepare<[string, string], Row>(
        `SELECT ${columns} FROM webmail_compose_attachments a JOIN webmail_compose c ON c.id = a.compose_id
         WHERE a.compose_id = ? AND c.session_id = ? ORDER BY a.seq`,
      )
      .all(String(id), sessionKey(String(sessionId)));
  }
}
