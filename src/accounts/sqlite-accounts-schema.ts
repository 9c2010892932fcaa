import { sqlStep, type SqliteSchema } from '../shared/sqlite-migrations.ts';

/** `accounts.sqlite`, step by step. Add a step for every change; never edit one that has shipped. */
export const accountsSchema: SqliteSchema = {
  name: 'accounts',
  steps: [
    // IF NOT EXISTS: files written before versions were recorded already have these tables.
    sqlStep(
      1,
      'accounts (password hash optional) and access tokens stored as hashes',
      `CREATE TABLE IF NOT EXISTS accounts (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT,
        created_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS access_tokens (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        secret_hash BLOB NOT NULL,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );`,
    ),
    sqlStep(2, 'tokens record when they were last used (to the minute)', 'ALTER TABLE access_tokens ADD COLUMN last_used_at TEXT'),
  ],
};
