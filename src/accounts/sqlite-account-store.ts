import { join } from 'node:path';
import { newId } from '../shared/ids.ts';
import { openSqlite, statementCache, type SqliteDatabase } from '../shared/sqlite.ts';
import { AccountError, checkUsername, type Account, type AccountStore, type TokenGrant } from './account-store.ts';
import { formatToken, hashSecret, mintSecret, secretMatches, splitToken } from './token-secret.ts';

interface AccountRow {
  id: string;
  username: string;
  created_at: string;
}

interface TokenRow extends AccountRow {
  token_id: string;
  secret_hash: Buffer;
  scopes: string;
  revoked_at: string | null;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS accounts (
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
  );
`;

const toAccount = (row: AccountRow): Account => ({ id: row.id, username: row.username, createdAt: row.created_at });

/** Embedded account store: `<DATA_DIR>/accounts.sqlite`, shared by the server and the CLI. */
export class SqliteAccountStore implements AccountStore {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(path: string) {
    this.db = openSqlite(path);
    this.db.exec(SCHEMA);
    this.sql = statementCache(this.db);
  }

  static inDataDir(dataDir: string): SqliteAccountStore {
    return new SqliteAccountStore(join(dataDir, 'accounts.sqlite'));
  }

  async createAccount(username: string): Promise<Account> {
    checkUsername(username);
    const account = { id: newId(), username, createdAt: new Date().toISOString() };
    try {
      this.sql('INSERT INTO accounts (id, username, created_at) VALUES (?, ?, ?)')
        .run(account.id, account.username, account.createdAt);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new AccountError(`username "${username}" is taken`);
      }
      throw error;
    }
    return account;
  }

  async findAccount(usernameOrId: string): Promise<Account | null> {
    const row = this.sql<[string, string], AccountRow>('SELECT id, username, created_at FROM accounts WHERE id = ? OR username = ?')
      .get(usernameOrId, usernameOrId);
    return row ? toAccount(row) : null;
  }

  async searchAccounts(prefix: string, limit: number): Promise<readonly Account[]> {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.sql<[string, number], AccountRow>(
        "SELECT id, username, created_at FROM accounts WHERE username LIKE ? ESCAPE '\\' ORDER BY username LIMIT ?",
      )
      .all(`${escaped}%`, limit)
      .map(toAccount);
  }

  async createToken(accountId: string, scopes: readonly string[]): Promise<string> {
    const tokenId = newId();
    const secret = mintSecret();
    this.sql('INSERT INTO access_tokens (id, account_id, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(tokenId, accountId, hashSecret(secret), scopes.join(' '), new Date().toISOString());
    return formatToken(tokenId, secret);
  }

  async revokeToken(token: string): Promise<boolean> {
    const row = this.tokenRow(token);
    if (!row || row.revoked_at !== null) return false;
    this.sql('UPDATE access_tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), row.token_id);
    return true;
  }

  async authenticate(token: string): Promise<TokenGrant | null> {
    const row = this.tokenRow(token);
    if (!row || row.revoked_at !== null) return null;
    return { tokenId: row.token_id, account: toAccount(row), scopes: row.scopes.split(' ') };
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    const result = this.sql('UPDATE accounts SET password_hash = ? WHERE id = ?').run(passwordHash, accountId);
    if (result.changes === 0) throw new AccountError(`no account ${accountId}`);
  }

  async passwordHash(accountId: string): Promise<string | null> {
    const row = this.sql<[string], { password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = ?')
      .get(accountId);
    return row?.password_hash ?? null;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** The row of a well-formed token whose secret matches; null for anything else. */
  private tokenRow(token: string): TokenRow | null {
    const parts = splitToken(token);
    if (!parts) return null;
    const row = this.sql<[string], TokenRow>(
        `SELECT t.id AS token_id, t.secret_hash, t.scopes, t.revoked_at, a.id, a.username, a.created_at
         FROM access_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.id = ?`,
      )
      .get(parts.tokenId);
    return row && secretMatches(parts.secret, row.secret_hash) ? row : null;
  }
}
