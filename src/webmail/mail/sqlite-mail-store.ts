import { durabilityOf, openSqlite, type ConnectionDurability, type SqliteDatabase } from '../../shared/sqlite.ts';
import { mailSchema } from './sqlite-mail-schema.ts';
import type { Delivery, Folder, MailStore, MessageHeader, SavedDraftMessage, StoredMessage, StoredOriginal } from './mail-store.ts';
import { storePath } from '../../shared/store-files.ts';
import type { MailSearch, SearchField } from './mail-search.ts';

/** The columns each search field looks in; the names come from this table, never from the request. */
const SEARCH_COLUMNS: Record<SearchField, string> = { subject: 'm.subject', from: 'm.sender', to: 'm.to_addresses', body: 'm.body' };

type EntryRow = {
  uid: number;
  folder: Folder;
  sender: string;
  to_addresses: string;
  cc_addresses: string;
  subject: string;
  date: string;
  seen: number;
  flagged: number;
  body: string;
  message_id: string;
  forwarded: string | null;
};

const SELECT_ENTRY = `SELECT e.uid, e.folder, e.seen, e.flagged, m.sender, m.to_addresses, m.cc_addresses, m.subject, m.date, m.body, m.message_id, m.forwarded
  FROM mailbox_entries e JOIN messages m ON m.id = e.message`;

const toHeader = (row: EntryRow): MessageHeader => ({
  uid: row.uid,
  folder: row.folder,
  from: row.sender,
  to: JSON.parse(row.to_addresses) as string[],
  cc: JSON.parse(row.cc_addresses) as string[],
  subject: row.subject,
  date: row.date,
  seen: row.seen === 1,
  flagged: row.flagged === 1,
});

const forwardedColumn = (forwarded: readonly StoredOriginal[]): string | null =>
  forwarded.length === 0
    ? null
    : JSON.stringify(forwarded.map(({ filename, raw, contentType }) => ({ filename, raw: raw.toString('base64'), ...(contentType ? { contentType } : {}) })));

const forwardedOf = (column: string | null): StoredOriginal[] =>
  column === null
    ? []
    : (JSON.parse(column) as { filename: string; raw: string; contentType?: string }[]).map(({ filename, raw, contentType }) => ({
        filename,
        raw: Buffer.from(raw, 'base64'),
        ...(contentType ? { contentType } : {}),
      }));

/** `<DATA_DIR>/mail.sqlite`: WAL with synchronous FULL, so a delivered message survives a crash. */
export class SqliteMailStore implements MailStore {
  private readonly db: SqliteDatabase;

  constructor(path: string) {
    // On the main thread: SQLite's wait sleeps the event loop; webmail-stores.ts retries asynchronously.
    this.db = openSqlite(path, mailSchema, 'full', 'main-thread');
  }

  static inDataDir(dataDir: string): SqliteMailStore {
    return new SqliteMailStore(storePath(dataDir, 'mail'));
  }

  /** The `messages` row a delivery and a draft both make. */
  private insertMessage(m: {
    readonly messageId: string;
    readonly from: string;
    readonly to: readonly string[];
    readonly cc: readonly string[];
    readonly subject: string;
    readonly body: string;
    readonly date: string;
    readonly forwarded?: readonly StoredOriginal[];
  }) {
    return this.db
      .prepare('INSERT INTO messages (message_id, sender, to_addresses, cc_addresses, subject, body, date, forwarded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(m.messageId, m.from, JSON.stringify(m.to), JSON.stringify(m.cc), m.subject, m.body, m.date, forwardedColumn(m.forwarded ?? []));
  }

  async deliver(delivery: Delivery): Promise<{ sentUid: number }> {
    return this.db.transaction(() => {
      const message = this.insertMessage(delivery);
      const file = this.db.prepare('INSERT INTO mailbox_entries (account_id, folder, message, seen) VALUES (?, ?, ?, ?)');
      const sentUid = Number(file.run(delivery.senderAccountId, 'Sent', message.lastInsertRowid, 1).lastInsertRowid);
      const delivered = new Set<string>();
      for (const recipient of delivery.localRecipients) {
        if (delivered.has(recipient.accountId)) continue;
        delivered.add(recipient.accountId);
        file.run(recipient.accountId, 'INBOX', message.lastInsertRowid, 0);
        this.remember(recipient.accountId, delivery.from, delivery.date);
      }
      for (const address of [...delivery.to, ...delivery.cc]) this.remember(delivery.senderAccountId, address, delivery.date);
      return { sentUid };
    })();
  }

  async saveDraft(accountId: string, draft: SavedDraftMessage, replacing: number | null): Promise<number> {
    return this.db.transaction(() => {
      const message = this.insertMessage(draft);
      const entry = this.db
        .prepare("INSERT INTO mailbox_entries (account_id, folder, message, seen) VALUES (?, 'Drafts', ?, 1)")
        .run(accountId, message.lastInsertRowid);
      if (replacing !== null) this.db.prepare("DELETE FROM mailbox_entries WHERE account_id = ? AND folder = 'Drafts' AND uid = ?").run(accountId, replacing);
      return Number(entry.lastInsertRowid);
    })();
  }

  async deleteDraft(accountId: string, uid: number): Promise<boolean> {
    return this.db.prepare("DELETE FROM mailbox_entries WHERE account_id = ? AND folder = 'Drafts' AND uid = ?").run(accountId, uid).changes > 0;
  }

  async list(accountId: string, folder: Folder, limit: number, offset = 0): Promise<MessageHeader[]> {
    return this.db
      .prepare<[string, string, number, number], EntryRow>(`${SELECT_ENTRY} WHERE e.account_id = ? AND e.folder = ? ORDER BY e.uid DESC LIMIT ? OFFSET ?`)
      .all(accountId, folder, limit, offset)
      .map(toHeader);
  }

  async count(accountId: string, folder: Folder): Promise<number> {
    return this.db
      .prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM mailbox_entries WHERE account_id = ? AND folder = ?')
      .get(accountId, folder)!.n;
  }

  async search(accountId: string, folder: Folder, search: MailSearch, limit: number, offset: number): Promise<{ total: number; messages: MessageHeader[] }> {
    // LIKE ignores ASCII case; the pattern's own % and _ are escaped so the text matches literally.
    const pattern = `%${search.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const matches = search.fields.map((field) => `${SEARCH_COLUMNS[field]} LIKE ? ESCAPE '\\'`).join(' OR ');
    const where = `WHERE e.account_id = ? AND e.folder = ? AND (${matches})`;
    const params = [accountId, folder, ...search.fields.map(() => pattern)];
    const total = this.db
      .prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM mailbox_entries e JOIN messages m ON m.id = e.message ${where}`)
      .get(...params)!.n;
    const rows = this.db.prepare<unknown[], EntryRow>(`${SELECT_ENTRY} ${where} ORDER BY e.uid DESC LIMIT ? OFFSET ?`).all(...params, limit, offset);
    return { total, messages: rows.map(toHeader) };
  }

  async moveToTrash(accountId: string, folder: Folder, uid: number): Promise<boolean> {
    const change =
      folder === 'Trash'
        ? this.db.prepare("DELETE FROM mailbox_entries WHERE account_id = ? AND folder = 'Trash' AND uid = ?").run(accountId, uid)
        : this.db.prepare("UPDATE mailbox_entries SET folder = 'Trash' WHERE account_id = ? AND folder = ? AND uid = ?").run(accountId, folder, uid);
    return change.changes > 0;
  }

  async moveTo(accountId: string, folder: Folder, uid: number, target: Folder): Promise<boolean> {
    if (folder === target) return false;
    return (
      this.db.prepare('UPDATE mailbox_entries SET folder = ? WHERE account_id = ? AND folder = ? AND uid = ?').run(target, accountId, folder, uid).changes > 0
    );
  }

  async listNewerThan(accountId: string, folder: Folder, uid: number, limit: number): Promise<MessageHeader[]> {
    return this.newerThan(accountId, folder, uid, limit);
  }

  private newerThan(accountId: string, folder: Folder, uid: number, limit: number): MessageHeader[] {
    return this.db
      .prepare<[string, string, number, number], EntryRow>(`${SELECT_ENTRY} WHERE e.account_id = ? AND e.folder = ? AND e.uid > ? ORDER BY e.uid DESC LIMIT ?`)
      .all(accountId, folder, uid, limit)
      .map(toHeader);
  }

  async get(accountId: string, folder: Folder, uid: number): Promise<StoredMessage | null> {
    const row = this.db
      .prepare<[string, string, number], EntryRow>(`${SELECT_ENTRY} WHERE e.account_id = ? AND e.folder = ? AND e.uid = ?`)
      .get(accountId, folder, uid);
    return row ? { ...toHeader(row), body: row.body, messageId: row.message_id, forwarded: forwardedOf(row.forwarded) } : null;
  }

  async markSeen(accountId: string, uid: number): Promise<void> {
    this.db.prepare('UPDATE mailbox_entries SET seen = 1 WHERE account_id = ? AND uid = ?').run(accountId, uid);
  }

  async setFlag(accountId: string, folder: Folder, uid: number, flag: 'seen' | 'flagged', on: boolean): Promise<boolean> {
    // The column name comes from the closed union, never from the request.
    const column = flag === 'seen' ? 'seen' : 'flagged';
    const result = this.db
      .prepare(`UPDATE mailbox_entries SET ${column} = ? WHERE account_id = ? AND folder = ? AND uid = ?`)
      .run(on ? 1 : 0, accountId, folder, uid);
    return result.changes > 0;
  }

  async unreadCount(accountId: string, folder: Folder): Promise<number> {
    return this.db
      .prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM mailbox_entries WHERE account_id = ? AND folder = ? AND seen = 0')
      .get(accountId, folder)!.n;
  }

  async correspondents(accountId: string, search: string, limit: number): Promise<string[]> {
    const escaped = search.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.db
      .prepare<[string, string, number], { address: string }>(
        "SELECT address FROM correspondents WHERE account_id = ? AND address LIKE ? ESCAPE '\\' ORDER BY last_used DESC LIMIT ?",
      )
      .all(accountId, `%${escaped}%`, limit)
      .map((row) => row.address);
  }

  /** Journal mode and sync level of the open connection, as SQLite reports them. */
  durability(): ConnectionDurability {
    return durabilityOf(this.db);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private remember(accountId: string, address: string, date: string): void {
    this.db
      .prepare('INSERT INTO correspondents (account_id, address, last_used) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET last_used = excluded.last_used')
      .run(accountId, address.toLowerCase(), date);
  }
}
