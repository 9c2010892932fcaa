import type { Context } from 'koa';
import type { SafeHtml } from './pages/html.ts';
import { requestCheckFailedPage } from './pages/error-page.ts';
import { TEXTS } from './pages/ui-texts.ts';
import type { WebmailRequest } from './webmail-request.ts';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-src 'self'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
].join('; ');

/**
 * Headers on every webmail response, errors included: Roundcube's X-Frame-Options, privacy and
 * no-cache headers, plus a CSP that allows only our own script and style (no inline code at all).
 */
export function setCommonHeaders(ctx: Context): void {
  const now = new Date().toUTCString();
  ctx.set({
    'X-Frame-Options': 'sameorigin',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-DNS-Prefetch-Control': 'off',
    'Cache-Control': 'private, no-cache, no-store, must-revalidate, post-check=0, pre-check=0',
    Pragma: 'no-cache',
    Expires: now,
    'Last-Modified': now,
  });
}

export function sendPage(ctx: Context, status: number, page: SafeHtml): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.text;
}

export function redirect(ctx: Context, location: string): void {
  ctx.status = 302;
  ctx.set('Location', location);
  ctx.body = '';
}

/** A refused request: XHRs get Roundcube's bare 403 "Invalid Request", pages its error page. */
export function sendForbidden(request: WebmailRequest): void {
  if (request.isAjax) {
    request.ctx.status = 403;
    request.ctx.type = 'text/html; charset=utf-8';
    request.ctx.body = TEXTS.invalidRequestTitle;
    return;
  }
  sendPage(request.ctx, 403, requestCheckFailedPage());
}
