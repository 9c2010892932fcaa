import type { Context } from 'koa';
import { AUTH_COOKIE, SESSION_COOKIE, WEBMAIL_PATH } from '../webmail-request.ts';

/** Session-lifetime cookies for the webmail only: HttpOnly, SameSite=Lax, Secure when served over HTTPS. */
function options(ctx: Context) {
  return { path: WEBMAIL_PATH, httpOnly: true, sameSite: 'lax', secure: ctx.secure, overwrite: true } as const;
}

export function readSessionCookies(ctx: Context): { sessionId: string | undefined; authSecret: string | undefined } {
  return { sessionId: ctx.cookies.get(SESSION_COOKIE) || undefined, authSecret: ctx.cookies.get(AUTH_COOKIE) || undefined };
}

export function setSessionCookie(ctx: Context, sessionId: string): void {
  ctx.cookies.set(SESSION_COOKIE, sessionId, options(ctx));
}

export function setAuthCookie(ctx: Context, secret: string): void {
  ctx.cookies.set(AUTH_COOKIE, secret, options(ctx));
}

/** Roundcube deletes the auth cookie by overwriting it with `-del-`, already expired. */
export function clearAuthCookie(ctx: Context): void {
  ctx.cookies.set(AUTH_COOKIE, '-del-', { ...options(ctx), expires: new Date(Date.now() - 60_000) });
}
