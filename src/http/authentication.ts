import type { Context, Next } from 'koa';
import { grants, type AccountStore, type TokenGrant } from '../accounts/account-store.ts';
import { forbidden, HttpError, unauthorized } from './http-errors.ts';
import type { ParamsState } from './request-params.ts';
import { tokenHolder, type AppTokenLookup } from './token-holder.ts';

export type { AppTokenLookup } from './token-holder.ts';

export interface AuthState {
  grant: TokenGrant;
  /** Set instead of `grant` for a token of an app with no account (OAuth client_credentials). */
  appOnly?: { readonly scopes: readonly string[] };
}

/**
 * Where Doorkeeper's default `access_token_methods` look (Mastodon keeps them; doorkeeper
 * lib/doorkeeper/oauth/token.rb): `Authorization: Bearer`, then the `access_token` parameter, then
 * `bearer_token`, each of the query or, once parsed, of the body.
 */
export function presentedToken(ctx: Context): string | null {
  const header = ctx.get('authorization');
  if (header !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  const params = (ctx.state as Partial<ParamsState>).params;
  const query = params ? null : new URLSearchParams(ctx.querystring);
  for (const name of ['access_token', 'bearer_token']) {
    const value = params ? params[name] : query!.get(name);
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * Anything missing, empty or unknown is 401 "The access token is invalid"; a user token revoked (the
 * whole token, secret and all) is "The access token was revoked", as Doorkeeper's InvalidTokenResponse
 * (lib/doorkeeper/oauth/invalid_token_response.rb) and Mastodon's credentials spec answer.
 */
export function authenticate(accounts: AccountStore, appTokens?: AppTokenLookup) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = presentedToken(ctx);
    // The rate-limit middleware may have looked this token up already: tokenHolder keeps it per request.
    const holder = token ? await tokenHolder(ctx, token, { accounts, ...(appTokens ? { appTokens } : {}) }) : null;
    const state = ctx.state as AuthState;
    if (holder?.kind === 'user') state.grant = holder.grant;
    else if (holder?.kind === 'app') state.appOnly = holder.appToken;
    else throw token ? await invalidToken(accounts, token) : unauthorized();
    await next();
  };
}

/** Doorkeeper's InvalidTokenResponse descriptions, by reason. */
async function invalidToken(accounts: AccountStore, token: string): Promise<HttpError> {
  const reason = accounts.invalidTokenReason ? await accounts.invalidTokenReason(token) : (await accounts.isRevokedToken(token)) ? 'revoked' : null;
  if (reason === 'revoked') return new HttpError(401, 'The access token was revoked');
  if (reason === 'expired') return new HttpError(401, 'The access token expired');
  return unauthorized();
}

/**
 * As Mastodon: the scope is checked first (403), then that the token has a user (422) who may act
 * (the grant's refusal), since its controllers run `doorkeeper_authorize!` before `require_user!`.
 */
function checkScope(ctx: Context, needed: string): void {
  const state = ctx.state as AuthState;
  if (!grants(state.appOnly ? state.appOnly.scopes : state.grant.scopes, needed)) throw forbidden();
  if (state.appOnly) throw new HttpError(422, 'This method requires an authenticated user');
  if (state.grant.refusal) throw new HttpError(state.grant.refusal.status, state.grant.refusal.message);
}

/** GET and HEAD need `read:filters` (or `read`); everything else needs `write:filters` (or `write`). */
export function requireFilterScope() {
  return async (ctx: Context, next: Next): Promise<void> => {
    checkScope(ctx, ctx.method === 'GET' || ctx.method === 'HEAD' ? 'read:filters' : 'write:filters');
    await next();
  };
}

/** For a route that needs one scope whatever its method (`read:filters` for POST /api/v2/filters/match). */
export function requireScope(needed: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    checkScope(ctx, needed);
    await next();
  };
}
