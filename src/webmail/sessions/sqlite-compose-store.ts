import type { SqliteDatabase } from '../../shared/sqlite.ts';
import type { ComposeDefaults, ComposeSession, ComposeStore } from './compose-store.ts';
import { newComposeId } from './random-strings.ts';
import { sessionKey } from './session-key.ts';

type ComposeRow = { id: string; defaults: string };

/** Compose IDs in `webmail-sessions.sqlite`, beside their session (named by the hash of its id, as it is stored). */
export class SqliteComposeStore implements ComposeStore {
  constructor(private readonly db: SqliteDatabase) {}

  async open(sessionId: string, defaults: ComposeDefaults): Promise<ComposeSession> {
    const id = newComposeId();
    this.db.prepare('INSERT INTO webmail_compose (id, session_id, defaults) VALUES (?, ?, ?)').run(id, sessionKey(String(sessionId)), JSON.stringify(defaults));
    return { id, defaults };
  }

  async find(sessionId: string, id: string): Promise<ComposeSession | null> {
    const row = this.db
      .prepare<[string, string], ComposeRow>('SELECT id, defaults FROM webmail_compose WHERE id = ? AND session_id = ? AND sending = 0')
      .get(String(id), sessionKey(String(sessionId)));
    return row ? { id: row.id, defaults: JSON.parse(row.defaults) as ComposeDefaults } : null;
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

  async finish(id: string): Promise<void> {
    this.db.prepare('DELETE FROM webmail_compose WHERE id = ?').run(String(id));
  }

  /** The database belongs to whoever opened it. */
  async close(): Promise<void> {}
}
