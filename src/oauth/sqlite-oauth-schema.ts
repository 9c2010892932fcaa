import { sqlStep, type SqliteSchema } from '../shared/sqlite-migrations.ts';

/** `oauth.sqlite`, step by step. Add a step for every change; never edit one that has shipped. */
export const oauthSchema: SqliteSchema = {
  name: 'oauth',
  steps: [
    sqlStep(
      1,
      'apps, authorization codes and app tokens, secrets stored as hashes',
      `CREATE TABLE apps (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL UNIQUE,
        secret_hash BLOB NOT NULL,
        name TEXT NOT NULL,
        website TEXT,
        redirect_uris TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE authorization_codes (
        code_hash BLOB PRIMARY KEY,
        app_id TEXT NOT NULL REFERENCES apps(id),
        account_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        scopes TEXT NOT NULL,
        code_challenge TEXT,
        code_challenge_method TEXT,
        expires_at INTEGER NOT NULL,
        used_at TEXT
      );
      CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at);
      CREATE TABLE app_tokens (
        token_id TEXT PRIMARY KEY,
        app_id TEXT NOT NULL REFERENCES apps(id),
        secret_hash BLOB,
        scopes TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX app_tokens_app ON app_tokens (app_id);`,
    ),
    sqlStep(
      2,
      'keys the deployment shares (the device-cookie key), made once',
      `CREATE TABLE deployment_keys (
        name TEXT PRIMARY KEY,
        value BLOB NOT NULL
      );`,
    ),
  ],
};
