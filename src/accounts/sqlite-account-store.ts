import { newId } from '../shared/ids.ts';
import { sharedStoreCall } from '../shared/sqlite-busy.ts';
import { durabilityOf, openSqlite, statementCache, type ConnectionDurability, type SqliteDatabase } from '../shared/sqlite.ts';
import { accountsSchema } from './sqlite-accounts-schema.ts';
import { AccountError, checkUsername, LAST_USED_PRECISION_MS, type Account, type AccountStore, type TokenGrant, type TokenRecord } from './account-store.ts';
import { LastUseBatch } from './last-use-batch.ts';
import { TokenCache, type CachedGrant } from './token-cache.ts';
import { formatToken, hashSecret, mintSecret, secretMatches, splitToken } from './token-secret.ts';
import { storePath } from '../shared/store-files.ts';

interface AccountRow {
  id: string;
  username: string;
  created_at: string;
}

interface TokenRow extends AccountRow {
  token_id: string;
  secret_hash: Buffer;
  scopes: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface TokenListRow {
  id: string;
  account_id: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toTokenRecord = (row: TokenListRow): TokenRecord => ({
  tokenId: row.id,
  accountId: row.account_id,
  scopes: row.scopes.split(' '),
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

const toAccount = (row: AccountRow): Account => ({ id: row.id, username: row.username, createdAt: row.created_at });

/** Embedded account store: `<DATA_DIR>/accounts.sqlite`, shared by the server and the CLI. */
export class SqliteAccountStore implements AccountStore {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly tokens: TokenCache;
  private readonly lastUses: LastUseBatch;

  constructor(path: string) {
    this.db = openSqlite(path, accountsSchema, 'full', 'main-thread');
    this.sql = statementCache(this.db);
    const dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.tokens = new TokenCache(() => dataVersion.get()!);
    this.lastUses = new LastUseBatch((uses) => {
      const update = this.sql('UPDATE access_tokens SET last_used_at = ? WHERE id = ?');
      this.db.transaction(() => {
        for (const [tokenId, usedAt] of uses) update.run(usedAt, tokenId);
      })();
    });
  }

  static inDataDir(dataDir: string): SqliteAccountStore {
    return new SqliteAccountStore(storePath(dataDir, 'accounts'));
  }

  createAccount(username: string): Promise<Account> {
    return this.call(() => {
      checkUsername(username);
      const account = { id: newId(), username, createdAt: new Date().toISOString() };
      try {
        this.sql('INSERT INTO accounts (id, username, created_at) VALUES (?, ?, ?)').run(account.id, account.username, account.createdAt);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new AccountError(`username "${username}" is taken`);
        }
        throw error;
      }
      return account;
    });
  }

  findAccount(usernameOrId: string): Promise<Account | null> {
    return this.call(() => {
      const row = this.sql<[string, string], AccountRow>('SELECT id, username, created_at FROM accounts WHERE id = ? OR username = ?').get(
        usernameOrId,
        usernameOrId,
      );
      return row ? toAccount(row) : null;
    });
  }

  searchAccounts(prefix: string, limit: number): Promise<readonly Account[]> {
    return this.call(() => {
      const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
      return this.sql<[string, number], AccountRow>("SELECT id, username, created_at FROM accounts WHERE username LIKE ? ESCAPE '\\' ORDER BY username LIMIT ?")
        .all(`${escaped}%`, limit)
        .map(toAccount);
    });
  }

  createToken(accountId: string, scopes: readonly string[]): Promise<string> {
    return this.call(() => {
      const tokenId = newId();
      const secret = mintSecret();
      try {
        this.sql('INSERT INTO access_tokens (id, account_id, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)').run(
          tokenId,
          String(accountId),
          hashSecret(secret),
          scopes.join(' '),
          new Date().toISOString(),
        );
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new AccountError(`no account ${accountId}`);
        throw error;
      }
      return formatToken(tokenId, secret);
    });
  }

  tokenRevokedAt(tokenId: string): Promise<string | null> {
    return this.call(() => {
      const row = this.sql<[string], { revoked_at: string | null }>('SELECT revoked_at FROM access_tokens WHERE id = ?').get(tokenId);
      return row?.revoked_at ?? null;
    });
  }

  revokeToken(token: string): Promise<boolean> {
    return this.call(() => {
      const row = this.tokenRow(token);
      if (!row || row.revoked_at !== null) return false;
      this.sql('UPDATE access_tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), row.token_id);
      this.tokens.clear();
      return true;
    });
  }

  revokeTokenById(tokenId: string): Promise<boolean> {
    return this.call(() => {
      const result = this.sql('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(new Date().toISOString(), tokenId);
      this.tokens.clear();
      return result.changes === 1;
    });
  }

  findToken(tokenId: string): Promise<TokenRecord | null> {
    return this.call(() => {
      this.lastUses.flush();
      const row = this.sql<[string], TokenListRow>('SELECT id, account_id, scopes, created_at, last_used_at, revoked_at FROM access_tokens WHERE id = ?').get(
        tokenId,
      );
      return row ? toTokenRecord(row) : null;
    });
  }

  listTokens(accountId: string): Promise<readonly TokenRecord[]> {
    return this.call(() => {
      this.lastUses.flush();
      return this.sql<[string], TokenListRow>(
        'SELECT id, account_id, scopes, created_at, last_used_at, revoked_at FROM access_tokens WHERE account_id = ? ORDER BY created_at, id',
      )
        .all(accountId)
        .map(toTokenRecord);
    });
  }

  isRevokedToken(token: string): Promise<boolean> {
    return this.call(() => (this.tokenRow(token)?.revoked_at ?? null) !== null);
  }

  authenticate(token: string): Promise<TokenGrant | null> {
    return this.call(() => {
      let cached = this.tokens.get(token);
      if (!cached) {
        const row = this.tokenRow(token);
        if (!row || row.revoked_at !== null) return null;
        const grant = { tokenId: row.token_id, account: toAccount(row), scopes: row.scopes.split(' ') };
        cached = { grant, lastUsedMs: row.last_used_at === null ? 0 : Date.parse(row.last_used_at) };
        this.tokens.remember(token, cached);
      }
      this.recordUse(cached);
      return cached.grant;
    });
  }

  setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    return this.call(() => {
      const result = this.sql('UPDATE accounts SET password_hash = ? WHERE id = ?').run(passwordHash, accountId);
      if (result.changes === 0) throw new AccountError(`no account ${accountId}`);
    });
  }

  passwordHash(accountId: string): Promise<string | null> {
    return this.call(() => {
      const row = this.sql<[string], { password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = ?').get(accountId);
      return row?.password_hash ?? null;
    });
  }

  /** Journal mode and sync level of the open connection, as SQLite reports them. */
  durability(): ConnectionDurability {
    return durabilityOf(this.db);
  }

  async close(): Promise<void> {
    this.lastUses.flush();
    this.db.close();
  }

  /**
   * Written only when the stored time is older than the precision, so a busy token costs one write a
   * minute. Bookkeeping: a write that fails (a full disk, a lock held elsewhere) fails no request, and
   * is tried again at the token's next use.
   */
  private recordUse(cached: CachedGrant): void {
    const now = Date.now();
    if (now - cached.lastUsedMs < LAST_USED_PRECISION_MS) return;
    cached.lastUsedMs = now;
    this.lastUses.add(cached.grant.tokenId, new Date(now).toISOString());
  }

  private call<T>(work: () => T): Promise<T> {
    return sharedStoreCall('accounts', work);
  }

  /** The row of a well-formed token whose secret matches; null for anything else. */
  private tokenRow(token: string): TokenRow | null {
    const parts = splitToken(token);
    if (!parts) return null;
    const row = this.sql<[string], TokenRow>(
      `SELECT t.id AS token_id, t.secret_hash, t.scopes, t.last_used_at, t.revoked_at, a.id, a.username, a.created_at
         FROM access_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.id = ?`,
    ).get(parts.tokenId);
    return row && secretMatches(parts.secret, row.secret_hash) ? row : null;
  }
}
