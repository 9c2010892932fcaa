import type { Context, Middleware, Next } from 'koa';

export const WEBMAIL_LOCAL_ACCOUNTS_REFUSED =
  "The webmail's local accounts belong to Mastodon here (MASTODON_DATABASE_URL is set), and Mastodon's passwords stay in Mastodon. Set IMAP_URL to read mail from an IMAP server instead.";

/**
 * Stands in for the webmail in Mastodon mode without IMAP_URL: its local mailboxes sign in with this
 * service's account passwords, which Mastodon mode has none of, so every webmail page says why.
 */
export function mastodonWebmailRefusal(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/webmail' && !ctx.path.startsWith('/webmail/')) {
      await next();
      return;
    }
    ctx.status = 403;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = `${WEBMAIL_LOCAL_ACCOUNTS_REFUSED}\n`;
  };
}
