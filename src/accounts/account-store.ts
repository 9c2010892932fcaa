/** Accounts own filters; access tokens name an account and the scopes it granted. */
export interface Account {
  readonly id: string;
  readonly username: string;
  readonly createdAt: string;
}

export interface TokenGrant {
  readonly tokenId: string;
  readonly account: Account;
  readonly scopes: readonly string[];
  /**
   * Set when the token is valid but its user may not act (Mastodon's `require_user!`: unconfirmed,
   * pending approval, disabled or suspended): answered once the token's scope has been checked.
   */
  readonly refusal?: { readonly status: number; readonly message: string } | undefined;
}

/** What an auditor sees of a token: never its secret. */
export interface TokenRecord {
  /** The id event metadata records as `tokenId` (the part of the token before the `_`). */
  readonly tokenId: string;
  readonly accountId: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  /** When a request last authenticated with it, to the minute; null if never. */
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** How often, at most, one process records a token's last use (a write per request would cost too much). */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * The account port. Tokens are kept only as hashes; `authenticate` compares in constant time and sees
 * a revocation as soon as it is committed, also when another process (the CLI) made it.
 */
export interface AccountStore {
  createAccount(username: string): Promise<Account>;
  /** Finds by id (digits) or by username, case-insensitively. */
  findAccount(usernameOrId: string): Promise<Account | null>;
  /** Accounts whose username starts with the prefix, for address completion. */
  searchAccounts(prefix: string, limit: number): Promise<readonly Account[]>;
  createToken(accountId: string, scopes: readonly string[]): Promise<string>;
  /** False when the token is unknown, its secret is wrong, or it was already revoked. */
  revokeToken(token: string): Promise<boolean>;
  /** By the id event metadata records; false when no such token is active. */
  revokeTokenById(tokenId: string): Promise<boolean>;
  /** True only for the whole token (its secret matching) of a revoked token: Doorkeeper's "was revoked". */
  isRevokedToken(token: string): Promise<boolean>;
  /**
   * Optional: why a token that did not authenticate is refused, when it is a known token (Doorkeeper's
   * "was revoked" or "expired"). Without it, isRevokedToken alone decides.
   */
  invalidTokenReason?(token: string): Promise<'revoked' | 'expired' | null>;
  /** When the token with this id was revoked; null when it is active or unknown (for a message that says which). */
  tokenRevokedAt(tokenId: string): Promise<string | null>;
  /** The token with this id, revoked or not (never its secret); null when there is none. */
  findToken(tokenId: string): Promise<TokenRecord | null>;
  /** Every token of the account, revoked ones too, oldest first. */
  listTokens(accountId: string): Promise<readonly TokenRecord[]>;
  /** Also records the token's last use (at most once per LAST_USED_PRECISION_MS and process). */
  authenticate(token: string): Promise<TokenGrant | null>;
  setPasswordHash(accountId: string, passwordHash: string): Promise<void>;
  passwordHash(accountId: string): Promise<string | null>;
  close(): Promise<void>;
}

export class AccountError extends Error {
  override readonly name = 'AccountError';
}

const USERNAME = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;
const SCOPE = /^(read|write|follow|push|profile)(:[a-z_]+)?$/;

/** Mastodon's username rule: letters, digits and underscores, dots and dashes only inside, 30 at most. */
export function checkUsername(username: string): void {
  if (!USERNAME.test(username) || username.length > 30) {
    throw new AccountError(`invalid username "${username}": use letters, digits and _ (dots and dashes inside), at most 30`);
  }
}

export function parseScopes(scopes: string): string[] {
  const list = [...new Set(scopes.split(/[\s,]+/).filter((s) => s !== ''))];
  if (list.length === 0) throw new AccountError('at least one scope is needed, e.g. "read:filters write:filters"');
  const unknown = list.filter((s) => !SCOPE.test(s));
  if (unknown.length > 0) throw new AccountError(`unknown scope(s): ${unknown.join(', ')}`);
  return list;
}

/** `read` covers `read:filters` and `write` covers `write:filters`, as in Mastodon's scope hierarchy. */
export function grants(scopes: readonly string[], needed: string): boolean {
  const [family] = needed.split(':');
  return scopes.includes(needed) || scopes.includes(family!);
}
