import { randomBytes } from 'node:crypto';
import { formatToken, hashSecret, mintSecret, secretMatches, splitToken } from '../accounts/token-secret.ts';
import { newId } from '../shared/ids.ts';
import { openSqlite, statementCache, type SqliteDatabase } from '../shared/sqlite.ts';
import { REQUEST_BUSY_LIMIT_MS, retryingStore } from '../shared/sqlite-busy.ts';
import type { AppTokenGrant, CodeGrant, NewApp, OAuthApp, OAuthStore } from './oauth-store.ts';
import { oauthSchema } from './sqlite-oauth-schema.ts';
import { storePath } from '../shared/store-files.ts';

interface AppRow {
  id: string;
  client_id: string;
  secret_hash: Buffer;
  name: string;
  website: string | null;
  redirect_uris: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

interface CodeRow {
  app_id: string;
  account_id: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: number;
}

const toApp = (row: AppRow): OAuthApp => ({
  id: row.id,
  clientId: row.client_id,
  name: row.name,
  website: row.website,
  redirectUris: row.redirect_uris.split('\n'),
  scopes: row.scopes.split(' '),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

// Each is one statement, one transaction, or steps that may run again (createCode's purge).
const OAUTH_CALLS = [
  'createApp',
  'findApp',
  'findAppById',
  'verifyClient',
  'listApps',
  'revokeApp',
  'createCode',
  'findCode',
  'useCode',
  'recordAccountToken',
  'appOfToken',
  'createAppToken',
  'authenticateAppToken',
  'revokeAppToken',
  'deviceCookieKey',
] as const;

const DEVICE_COOKIE_KEY = 'device_cookie';

/** Codes a day past their expiry are deleted as new ones are made, so the table stays small. */
const CODE_KEEP_MS = 24 * 60 * 60 * 1000;

/** Embedded OAuth store: `<DATA_DIR>/oauth.sqlite`, shared by the API processes and the CLI. */
export class SqliteOAuthStore implements OAuthStore {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(path: string) {
    this.db = openSqlite(path, oauthSchema, 'full', 'main-thread');
    this.sql = statementCache(this.db);
  }

  /** Every call a request waits on, retried while another process holds the file, a 503 past REQUEST_BUSY_LIMIT_MS. */
  static inDataDir(dataDir: string): SqliteOAuthStore {
    return retryingStore(new SqliteOAuthStore(storePath(dataDir, 'oauth')), 'OAuth', OAUTH_CALLS, {
      limitMs: REQUEST_BUSY_LIMIT_MS,
      shownAs: 'the OAuth store',
    });
  }

  async createApp(app: NewApp): Promise<{ app: OAuthApp; clientSecret: string }> {
    const clientSecret = mintSecret();
    const created: OAuthApp = {
      id: newId(),
      clientId: randomBytes(32).toString('base64url'),
      name: app.name,
      website: app.website,
      redirectUris: app.redirectUris,
      scopes: app.scopes,
      createdAt: new Date().toISOString(),
      revokedAt: null,
    };
    this.sql('INSERT INTO apps (id, client_id, secret_hash, name, website, redirect_uris, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      created.id,
      created.clientId,
      hashSecret(clientSecret),
      created.name,
      created.website,
      created.redirectUris.join('\n'),
      created.scopes.join(' '),
      created.createdAt,
    );
    return { app: created, clientSecret };
  }

  async findApp(clientId: string): Promise<OAuthApp | null> {
    const row = this.appRow(clientId);
    return row ? toApp(row) : null;
  }

  async findAppById(appId: string): Promise<OAuthApp | null> {
    const row = this.sql<[string], AppRow>('SELECT * FROM apps WHERE id = ? AND revoked_at IS NULL').get(appId);
    return row ? toApp(row) : null;
  }

  async verifyClient(clientId: string, clientSecret: string): Promise<OAuthApp | null> {
    const row = this.appRow(clientId);
    return row && secretMatches(clientSecret, row.secret_hash) ? toApp(row) : null;
  }

  async listApps(): Promise<readonly OAuthApp[]> {
    return this.sql<[], AppRow>('SELECT * FROM apps ORDER BY created_at, id').all().map(toApp);
  }

  async revokeApp(appId: string): Promise<readonly string[] | null> {
    const now = new Date().toISOString();
    return this.db.transaction(() => {
      const changed = this.sql('UPDATE apps SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, appId).changes;
      if (changed === 0) return null;
      this.sql('UPDATE app_tokens SET revoked_at = ? WHERE app_id = ? AND revoked_at IS NULL').run(now, appId);
      return this.sql<[string], string>('SELECT token_id FROM app_tokens WHERE app_id = ? AND secret_hash IS NULL').pluck().all(appId);
    })();
  }

  async createCode(grant: CodeGrant): Promise<string> {
    const code = mintSecret();
    const now = Date.now();
    this.sql('DELETE FROM authorization_codes WHERE expires_at < ?').run(now - CODE_KEEP_MS);
    this.sql(
      `INSERT INTO authorization_codes (code_hash, app_id, account_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      hashSecret(code),
      grant.appId,
      grant.accountId,
      grant.redirectUri,
      grant.scopes.join(' '),
      grant.codeChallenge,
      grant.codeChallengeMethod,
      grant.expiresAt.getTime(),
    );
    return code;
  }

  async findCode(code: string): Promise<CodeGrant | null> {
    const row = this.sql<[Buffer], CodeRow>('SELECT * FROM authorization_codes WHERE code_hash = ? AND used_at IS NULL').get(hashSecret(code));
    if (!row) return null;
    return {
      appId: row.app_id,
      accountId: row.account_id,
      redirectUri: row.redirect_uri,
      scopes: row.scopes.split(' '),
      codeChallenge: row.code_challenge,
      codeChallengeMethod: row.code_challenge_method,
      expiresAt: new Date(row.expires_at),
    };
  }

  async useCode(code: string): Promise<boolean> {
    const result = this.sql('UPDATE authorization_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL').run(
      new Date().toISOString(),
      hashSecret(code),
    );
    return result.changes === 1;
  }

  async recordAccountToken(tokenId: string, appId: string): Promise<void> {
    this.sql('INSERT INTO app_tokens (token_id, app_id, scopes, created_at) VALUES (?, ?, ?, ?)').run(tokenId, appId, '', new Date().toISOString());
  }

  async appOfToken(tokenId: string): Promise<OAuthApp | null> {
    const row = this.sql<[string], AppRow>('SELECT a.* FROM app_tokens t JOIN apps a ON a.id = t.app_id WHERE t.token_id = ?').get(tokenId);
    return row ? toApp(row) : null;
  }

  async createAppToken(appId: string, scopes: readonly string[]): Promise<string> {
    const tokenId = newId();
    const secret = mintSecret();
    this.sql('INSERT INTO app_tokens (token_id, app_id, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)').run(
      tokenId,
      appId,
      hashSecret(secret),
      scopes.join(' '),
      new Date().toISOString(),
    );
    return formatToken(tokenId, secret);
  }

  async authenticateAppToken(token: string): Promise<AppTokenGrant | null> {
    const parts = splitToken(token);
    if (!parts) return null;
    const row = this.sql<[string], AppRow & { token_secret: Buffer | null; token_scopes: string; token_revoked_at: string | null }>(
      `SELECT a.*, t.secret_hash AS token_secret, t.scopes AS token_scopes, t.revoked_at AS token_revoked_at
         FROM app_tokens t JOIN apps a ON a.id = t.app_id WHERE t.token_id = ?`,
    ).get(parts.tokenId);
    if (!row?.token_secret || row.token_revoked_at !== null || row.revoked_at !== null) return null;
    if (!secretMatches(parts.secret, row.token_secret)) return null;
    return { tokenId: parts.tokenId, app: toApp(row), scopes: row.token_scopes.split(' ') };
  }

  async revokeAppToken(token: string): Promise<boolean> {
    const grant = await this.authenticateAppToken(token);
    if (!grant) return false;
    this.sql('UPDATE app_tokens SET revoked_at = ? WHERE token_id = ?').run(new Date().toISOString(), grant.tokenId);
    return true;
  }

  async deviceCookieKey(): Promise<Buffer> {
    // The first insert wins; a racing process's ignored insert then reads the winner's key.
    this.sql('INSERT OR IGNORE INTO deployment_keys (name, value) VALUES (?, ?)').run(DEVICE_COOKIE_KEY, randomBytes(32));
    return this.sql<[string], Buffer>('SELECT value FROM deployment_keys WHERE name = ?').pluck().get(DEVICE_COOKIE_KEY)!;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private appRow(clientId: string): AppRow | undefined {
    return this.sql<[string], AppRow>('SELECT * FROM apps WHERE client_id = ? AND revoked_at IS NULL').get(clientId);
  }
}
