import { openSqlite, type BusyWait, type SqliteDatabase } from '../../shared/sqlite.ts';
import { sqlStep, type SqliteSchema } from '../../shared/sqlite-migrations.ts';
import { sessionKey } from './session-key.ts';
import { storePath } from '../../shared/store-files.ts';

/**
 * `webmail-sessions.sqlite`, which holds the sessions, their compose IDs and the login
 * rate limit's counters, step by step. Add a step
 * for every change; never edit one that has shipped.
 */
export const webmailSessionsSchema: SqliteSchema = {
  name: 'webmail-sessions',
  steps: [
    // IF NOT EXISTS: files written before versions were recorded already have these tables.
    sqlStep(
      1,
      'sessions (token, login, expiry) and the compose IDs of each session',
      `CREATE TABLE IF NOT EXISTS webmail_sessions (
        id TEXT PRIMARY KEY,
        request_token TEXT NOT NULL,
        login_page_shown INTEGER NOT NULL,
        account_id TEXT,
        username TEXT,
        auth_secret TEXT,
        last_compose_id TEXT,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS webmail_sessions_expiry ON webmail_sessions (expires_at);
      CREATE TABLE IF NOT EXISTS webmail_compose (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES webmail_sessions(id) ON DELETE CASCADE,
        sending INTEGER NOT NULL DEFAULT 0,
        defaults TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS webmail_compose_session ON webmail_compose (session_id);`,
    ),
    sqlStep(
      2,
      'login failure windows per account (the rate limit), shared by every process on the data directory',
      `CREATE TABLE login_failures (
        account_id TEXT PRIMARY KEY,
        window_start INTEGER NOT NULL,
        failures INTEGER NOT NULL
      );`,
    ),
    sqlStep(3, 'the sealed mail server password of a session signed in over IMAP', `ALTER TABLE webmail_sessions ADD COLUMN mail_secret TEXT;`),
    {
      version: 4,
      description: 'session ids and auth secrets stored as their SHA-256 only; the sessions already stored hashed in place, so nobody is logged out',
      up: (db) => {
        db.function('cf_session_key', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? sessionKey(text) : null));
        // The compose IDs point at the old ids until both tables are rewritten: checked at commit instead.
        db.pragma('defer_foreign_keys = ON');
        db.exec(`
          UPDATE webmail_compose SET session_id = cf_session_key(session_id);
          UPDATE webmail_sessions SET id = cf_session_key(id), auth_secret = cf_session_key(auth_secret);
          ALTER TABLE webmail_sessions RENAME COLUMN auth_secret TO auth_secret_hash;
        `);
      },
    },
    sqlStep(
      5,
      'files uploaded into a compose ID (removed with it), and where its draft was saved last',
      `CREATE TABLE webmail_compose_attachments (
        compose_id TEXT NOT NULL REFERENCES webmail_compose(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        filename TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        content BLOB NOT NULL,
        PRIMARY KEY (compose_id, id)
      );
      ALTER TABLE webmail_compose ADD COLUMN draft_folder TEXT;
      ALTER TABLE webmail_compose ADD COLUMN draft_uid INTEGER;`,
    ),
  ],
};

/** `<dataDir>/webmail-sessions.sqlite`, shared by the session, compose and rate-limit stores. */
export const openSessionDatabase = (dataDir: string, busyWait: BusyWait = 'blocking'): SqliteDatabase =>
  openSqlite(storePath(dataDir, 'webmailSessions'), webmailSessionsSchema, 'full', busyWait);
