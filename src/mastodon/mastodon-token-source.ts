import type pg from 'pg';
import type { TokenGrant } from '../accounts/account-store.ts';
import { BoundedCache } from '../shared/bounded-cache.ts';
import { SingleFlight } from '../shared/single-flight.ts';
import { mastodonQuery } from './mastodon-query.ts';

/** What a presented token is in Mastodon's tables, judged as Doorkeeper and Api::BaseController judge it. */
export type TokenOutcome =
  | { readonly kind: 'user'; readonly grant: TokenGrant }
  /** A token with no user (client_credentials) or whose user is gone: Mastodon's `current_user` is nil. */
  | { readonly kind: 'app'; readonly tokenId: string; readonly scopes: readonly string[] }
  /** Doorkeeper's InvalidTokenResponse reasons (lib/doorkeeper/oauth/invalid_token_response.rb). */
  | { readonly kind: 'revoked' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'unknown' };

interface TokenRow {
  id: string;
  scopes: string | null;
  revoked: boolean;
  expired: boolean;
  user_id: string | null;
  account_id: string | null;
  username: string | null;
  account_created_at: string | null;
  confirmed: boolean | null;
  approved: boolean | null;
  functional: boolean | null;
}

// Mastodon's timestamps are `timestamp without time zone` holding UTC, so "now" is compared in UTC.
// Doorkeeper's AccessToken: revoked? is `revoked_at && revoked_at <= now` (a future revocation is not
// one yet); expired? is `expires_in && created_at + expires_in seconds < now` (nil: never expires).
// User#functional? (app/models/user.rb): confirmed, approved, not disabled, its account neither
// suspended (Account#unavailable?) nor a memorial nor moved away.
const LOOKUP = `
  SELECT t.id::text AS id, t.scopes,
         (t.revoked_at IS NOT NULL AND t.revoked_at <= (now() AT TIME ZONE 'UTC')) AS revoked,
         (t.expires_in IS NOT NULL AND t.created_at + make_interval(secs => t.expires_in) < (now() AT TIME ZONE 'UTC')) AS expired,
         u.id::text AS user_id, a.id::text AS account_id, a.username,
         to_char(a.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS account_created_at,
         u.confirmed_at IS NOT NULL AS confirmed, u.approved,
         (NOT u.disabled AND a.suspended_at IS NULL AND NOT a.memorial AND a.moved_to_account_id IS NULL) AS functional
    FROM oauth_access_tokens t
    LEFT JOIN users u ON u.id = t.resource_owner_id
    LEFT JOIN accounts a ON a.id = u.account_id
   WHERE t.token = $1`;

/** Doorkeeper's scopes column: space-separated (OAuth::Scopes.from_string). */
const scopesOf = (column: string | null): string[] => (column ?? '').split(/\s+/).filter((scope) => scope !== '');

/** Api::BaseController#require_user! (current Mastodon), in its order, for a user's token. */
function refusalOf(row: TokenRow): TokenGrant['refusal'] {
  if (!row.confirmed) return { status: 403, message: 'Your login is missing a confirmed e-mail address' };
  if (!row.approved) return { status: 403, message: 'Your login is currently pending approval' };
  if (!row.functional) return { status: 403, message: 'Your login is currently disabled' };
  return undefined;
}

function outcomeOf(row: TokenRow | undefined): TokenOutcome {
  if (!row) return { kind: 'unknown' };
  if (row.revoked) return { kind: 'revoked' };
  if (row.expired) return { kind: 'expired' };
  const scopes = scopesOf(row.scopes);
  if (row.user_id === null || row.account_id === null) return { kind: 'app', tokenId: row.id, scopes };
  const refusal = refusalOf(row);
  const account = { id: row.account_id, username: row.username!, createdAt: row.account_created_at! };
  return { kind: 'user', grant: { tokenId: row.id, account, scopes, ...(refusal ? { refusal } : {}) } };
}

/** How long an outcome read from Mastodon's tables is believed (see the class comment). */
export const TOKEN_CACHE_MS = 1_000;

/**
 * While Mastodon's database cannot be reached, a user's outcome read this recently still stands: nothing
 * can revoke, disable or suspend in Mastodon then (those are writes to the same database), so writes of
 * clients already signed in keep landing in the log during a restart or fail-over of PostgreSQL.
 */
export const OUTAGE_GRACE_MS = 120_000;

/**
 * Tokens looked up in Mastodon's `oauth_access_tokens`, as its streaming server's `accountFromToken`
 * does (streaming/index.js), kept for TOKEN_CACHE_MS so a burst of requests costs one query.
 *
 * Why a short lifetime and not an invalidation: Mastodon revokes a token, disables or suspends a user
 * by updating its rows, and nothing tells anyone else. LISTEN/NOTIFY would need triggers on Mastodon's
 * tables, which its migrations own (and `db:schema:load` would drop); asking "still valid?" on every
 * request costs the same indexed round trip as the lookup itself. So each outcome is believed for one
 * second: a change committed in Mastodon is obeyed by every request that starts a second later.
 * Unknown tokens are never kept, so a token Mastodon has just issued works at once. Concurrent
 * requests with one token share one query.
 */
export class MastodonTokenSource {
  private readonly known: BoundedCache<string, { readonly outcome: TokenOutcome; readonly until: number; readonly readAt: number }>;
  private readonly pending = new SingleFlight<TokenOutcome>();

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly options: { readonly cacheMs?: number; readonly graceMs?: number; readonly capacity?: number; readonly now?: () => number } = {},
  ) {
    const capacity = options.capacity ?? 10_000;
    this.known = new BoundedCache({ entries: capacity, weight: capacity });
  }

  lookup(token: string): Promise<TokenOutcome> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.known.get(token);
    if (cached && cached.until > now) return Promise.resolve(cached.outcome);
    return this.pending.run(token, () => this.read(token, now));
  }

  private async read(token: string, askedAt: number): Promise<TokenOutcome> {
    let rows: TokenRow[];
    try {
      rows = await mastodonQuery<TokenRow>(this.pool, LOOKUP, [token]);
    } catch (error) {
      const last = this.known.get(token);
      const grace = this.options.graceMs ?? OUTAGE_GRACE_MS;
      if (last?.outcome.kind === 'user' && askedAt - last.readAt < grace) return last.outcome;
      throw error;
    }
    const outcome = outcomeOf(rows[0]);
    if (outcome.kind !== 'unknown') {
      // Counted from before the query was sent: what it read is no older than that.
      this.known.set(token, { outcome, until: askedAt + (this.options.cacheMs ?? TOKEN_CACHE_MS), readAt: askedAt }, 1);
    }
    return outcome;
  }
}
