import type { Context } from 'koa';
import type { AccountStore, TokenGrant } from '../accounts/account-store.ts';

/** An app's own token (OAuth client_credentials); a lookup may give more (the app itself), kept as given. */
export interface AppToken {
  readonly tokenId: string;
  readonly scopes: readonly string[];
}

/** Finds the token of an app with no account; its scopes, or null. */
export type AppTokenLookup = (token: string) => Promise<AppToken | null>;

/** Where a presented token is looked up: the accounts' user tokens first, then apps' own tokens. */
export interface TokenSources {
  readonly accounts: AccountStore;
  readonly appTokens?: AppTokenLookup;
}

/** Who holds a token: a user (with the grant), an app with no account, or nobody (unknown or revoked). */
export type TokenHolder = { readonly kind: 'user'; readonly grant: TokenGrant } | { readonly kind: 'app'; readonly appToken: AppToken } | null;

/** The request's token as looked up once, kept in ctx.state for every later layer that needs it. */
export interface TokenHolderState {
  tokenHolder?: { readonly token: string; readonly holder: Promise<TokenHolder> };
}

async function lookUp(token: string, sources: TokenSources): Promise<TokenHolder> {
  const grant = await sources.accounts.authenticate(token);
  if (grant) return { kind: 'user', grant };
  const app = sources.appTokens ? await sources.appTokens(token) : null;
  return app ? { kind: 'app', appToken: app } : null;
}

/**
 * The holder of a token, looked up at most once per request: the rate-limit middleware and the
 * authentication both ask, and each lookup costs a store call and records the token's use. Kept under
 * the token itself, since authentication also reads a token from a form body, which the throttle (run
 * before any body is parsed) never sees: a different token is looked up afresh.
 */
export function tokenHolder(ctx: Context, token: string, sources: TokenSources): Promise<TokenHolder> {
  const state = ctx.state as TokenHolderState;
  const kept = state.tokenHolder;
  if (kept && kept.token === token) return kept.holder;
  const holder = lookUp(token, sources);
  state.tokenHolder = { token, holder };
  return holder;
}
