import type { Context, Next } from 'koa';
import { grants, type AccountStore, type TokenGrant } from '../accounts/account-store.ts';
import { forbidden, unauthorized } from './http-errors.ts';

export interface AuthState {
  grant: TokenGrant;
}

/** `Authorization: Bearer <token>`: anything missing, empty, unknown or revoked is the same 401. */
export function authenticate(accounts: AccountStore) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const grant = match ? await accounts.authenticate(match[1]!) : null;
    if (!grant) throw unauthorized();
    (ctx.state as AuthState).grant = grant;
    await next();
  };
}

/** GET and HEAD need `read:filters` (or `read`); everything else needs `write:filters` (or `write`). */
export function requireFilterScope() {
  return async (ctx: Context, next: Next): Promise<void> => {
    const needed = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'read:filters' : 'write:filters';
    if (!grants((ctx.state as AuthState).grant.scopes, needed)) throw forbidden();
    await next();
  };
}

/** For a route that needs one scope whatever its method (`read:filters` for POST /api/v2/filters/match). */
export function requireScope(needed: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!grants((ctx.state as AuthState).grant.scopes, needed)) throw forbidden();
    await next();
  };
}
