import type pg from 'pg';
import { AccountError, type Account, type AccountStore, type TokenGrant, type TokenRecord } from '../accounts/account-store.ts';
import { mastodonQuery } from './mastodon-query.ts';
import { MastodonTokenSource } from './mastodon-token-source.ts';

/** What every write to accounts or tokens answers in Mastodon mode. */
export const MASTODON_OWNS_ACCOUNTS =
  'accounts, apps and tokens belong to Mastodon here (MASTODON_DATABASE_URL is set): create and revoke them in Mastodon (its settings pages, tootctl or its OAuth endpoints)';

const ISO = (column: string): string => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const ACCOUNT_COLUMNS = `a.id::text AS id, a.username, ${ISO('a.created_at')} AS "createdAt"`;
const TOKEN_COLUMNS = `t.id::text AS "tokenId", u.account_id::text AS "accountId", coalesce(t.scopes, '') AS scopes,
  ${ISO('t.created_at')} AS "createdAt", ${ISO('t.last_used_at')} AS "lastUsedAt", ${ISO('t.revoked_at')} AS "revokedAt"`;

type TokenRow = Omit<TokenRecord, 'scopes'> & { scopes: string };
const record = (row: TokenRow): TokenRecord => ({ ...row, scopes: row.scopes.split(/\s+/).filter((s) => s !== '') });

/**
 * The account port on a running Mastodon's PostgreSQL: its local accounts (`domain IS NULL`) with a
 * user, and its OAuth access tokens. Read only: Mastodon alone creates, changes and revokes them.
 */
export class MastodonAccountStore implements AccountStore {
  /** Told apart by this, not instanceof, for the reason src/shared/store-unavailable.ts gives. */
  readonly owner = 'mastodon';
  readonly tokens: MastodonTokenSource;

  constructor(
    readonly pool: pg.Pool,
    tokens?: MastodonTokenSource,
  ) {
    this.tokens = tokens ?? new MastodonTokenSource(pool);
  }

  async authenticate(token: string): Promise<TokenGrant | null> {
    const outcome = await this.tokens.lookup(token);
    return outcome.kind === 'user' ? outcome.grant : null;
  }

  /** A token of an app (no user), for the middleware's app-token port: Mastodon then answers 422. */
  async authenticateAppToken(token: string): Promise<{ readonly tokenId: string; readonly scopes: readonly string[] } | null> {
    const outcome = await this.tokens.lookup(token);
    return outcome.kind === 'app' ? { tokenId: outcome.tokenId, scopes: outcome.scopes } : null;
  }

  async isRevokedToken(token: string): Promise<boolean> {
    return (await this.tokens.lookup(token)).kind === 'revoked';
  }

  async invalidTokenReason(token: string): Promise<'revoked' | 'expired' | null> {
    const { kind } = await this.tokens.lookup(token);
    return kind === 'revoked' || kind === 'expired' ? kind : null;
  }

  async findAccount(usernameOrId: string): Promise<Account | null> {
    const byId = /^\d{1,19}$/.test(usernameOrId);
    const rows = await mastodonQuery<Account>(
      this.pool,
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.domain IS NULL AND ${byId ? 'a.id = $1::bigint' : 'lower(a.username) = lower($1)'}
         AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id)`,
      [usernameOrId],
    );
    return rows[0] ?? null;
  }

  async searchAccounts(prefix: string, limit: number): Promise<readonly Account[]> {
    const pattern = `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await mastodonQuery<Account>(
      this.pool,
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a JOIN users u ON u.account_id = a.id
        WHERE a.domain IS NULL AND lower(a.username) LIKE $1 ORDER BY lower(a.username) LIMIT $2`,
      [pattern, limit],
    );
    return rows;
  }

  async tokenRevokedAt(tokenId: string): Promise<string | null> {
    return (await this.findToken(tokenId))?.revokedAt ?? null;
  }

  async findToken(tokenId: string): Promise<TokenRecord | null> {
    if (!/^\d{1,19}$/.test(tokenId)) return null;
    const rows = await mastodonQuery<TokenRow>(
      this.pool,
      `SELECT ${TOKEN_COLUMNS} FROM oauth_access_tokens t JOIN users u ON u.id = t.resource_owner_id WHERE t.id = $1::bigint`,
      [tokenId],
    );
    return rows[0] ? record(rows[0]) : null;
  }

  async listTokens(accountId: string): Promise<readonly TokenRecord[]> {
    if (!/^\d{1,19}$/.test(accountId)) return [];
    const rows = await mastodonQuery<TokenRow>(
      this.pool,
      `SELECT ${TOKEN_COLUMNS} FROM oauth_access_tokens t JOIN users u ON u.id = t.resource_owner_id WHERE u.account_id = $1::bigint ORDER BY t.id`,
      [accountId],
    );
    return rows.map(record);
  }

  /** Mastodon's passwords are Devise's; this service never signs anyone in with them. */
  async passwordHash(): Promise<string | null> {
    return null;
  }

  createAccount(): Promise<Account> {
    return refuse();
  }
  createToken(): Promise<string> {
    return refuse();
  }
  revokeToken(): Promise<boolean> {
    return refuse();
  }
  revokeTokenById(): Promise<boolean> {
    return refuse();
  }
  setPasswordHash(): Promise<void> {
    return refuse();
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

const refuse = (): Promise<never> => Promise.reject(new AccountError(MASTODON_OWNS_ACCOUNTS));

/** The store as Mastodon's, when Mastodon mode opened it; null for this service's own accounts. */
export function mastodonAccounts(store: AccountStore): MastodonAccountStore | null {
  return (store as Partial<MastodonAccountStore>).owner === 'mastodon' ? (store as MastodonAccountStore) : null;
}
