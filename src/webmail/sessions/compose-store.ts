import type { SqliteDatabase } from '../../shared/sqlite.ts';
import { newComposeId } from './random-strings.ts';

/** What a new message starts with (a reply fills these in). */
export type ComposeDefaults = {
  readonly to: string;
  readonly cc: string;
  readonly subject: string;
  readonly body: string;
};

export type ComposeSession = { readonly id: string; readonly defaults: ComposeDefaults };

type ComposeRow = { id: string; defaults: string };

/**
 * Compose IDs, kept beside the session (as Roundcube's compose_data_<ID>). An ID belongs to one session
 * and sends one message: `claim` takes it atomically, so a double submit or a second tab finds it
 * already in use and gets "Invalid compose ID" instead of sending twice.
 */
export class ComposeStore {
  constructor(private readonly db: SqliteDatabase) {}

  open(sessionId: string, defaults: ComposeDefaults): ComposeSession {
    const id = newComposeId();
    this.db.prepare('INSERT INTO webmail_compose (id, session_id, defaults) VALUES (?, ?, ?)').run(id, sessionId, JSON.stringify(defaults));
    return { id, defaults };
  }

  /** The session's compose ID that is open for editing, or null. */
  find(sessionId: string, id: string): ComposeSession | null {
    const row = this.db
      .prepare<[string, string], ComposeRow>('SELECT id, defaults FROM webmail_compose WHERE id = ? AND session_id = ? AND sending = 0')
      .get(id, sessionId);
    return row ? { id: row.id, defaults: JSON.parse(row.defaults) as ComposeDefaults } : null;
  }

  /** Marks the ID as being sent; false when it is unknown, another session's, or already taken. */
  claim(sessionId: string, id: string): boolean {
    return this.db.prepare('UPDATE webmail_compose SET sending = 1 WHERE id = ? AND session_id = ? AND sending = 0').run(id, sessionId).changes === 1;
  }

  /** The send failed (a refused recipient): the form stays open and may be sent again. */
  release(id: string): void {
    this.db.prepare('UPDATE webmail_compose SET sending = 0 WHERE id = ?').run(id);
  }

  /** The message went out: the ID can never send again. */
  finish(id: string): void {
    this.db.prepare('DELETE FROM webmail_compose WHERE id = ?').run(id);
  }
}
