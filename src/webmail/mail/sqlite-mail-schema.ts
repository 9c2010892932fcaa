import { sqlStep, type SqliteSchema } from '../../shared/sqlite-migrations.ts';

/** `mail.sqlite`, step by step. Add a step for every change; never edit one that has shipped. */
export const mailSchema: SqliteSchema = {
  name: 'mail',
  steps: [
    // IF NOT EXISTS: files written before versions were recorded already have these tables.
    sqlStep(
      1,
      'messages, the folder entries that point at them, and each account correspondents',
      `CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL,
        sender TEXT NOT NULL,
        to_addresses TEXT NOT NULL,
        cc_addresses TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        date TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS mailbox_entries (
        uid INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL,
        folder TEXT NOT NULL,
        message INTEGER NOT NULL REFERENCES messages(id),
        seen INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS mailbox_entries_folder ON mailbox_entries (account_id, folder, uid);
      CREATE TABLE IF NOT EXISTS correspondents (
        account_id TEXT NOT NULL,
        address TEXT NOT NULL COLLATE NOCASE,
        last_used TEXT NOT NULL,
        PRIMARY KEY (account_id, address)
      );`,
    ),
    sqlStep(2, 'a flag on each folder entry (Roundcube mark flagged)', `ALTER TABLE mailbox_entries ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;`),
    // JSON [{filename, raw (base64)}]; NULL for a message that forwards nothing.
    sqlStep(3, 'originals forwarded as attachments', `ALTER TABLE messages ADD COLUMN forwarded TEXT;`),
  ],
};
