import Router from '@koa/router';
import type { Context } from 'koa';
import { MASTODON_OWNS_ACCOUNTS } from './mastodon-account-store.ts';

/** The paths this service's own OAuth 2 sign-in answers outside Mastodon mode (src/oauth/routes). */
const OAUTH_PATHS = [
  '/api/v1/apps',
  '/api/v1/apps/verify_credentials',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/revoke',
  '/.well-known/oauth-authorization-server',
];

/**
 * In Mastodon mode apps register, users sign in and tokens are issued and revoked by Mastodon: these
 * paths answer 403 with a message naming the owner, so a client sent here by a wrong proxy rule learns
 * where to go instead of getting a token Mastodon would not know.
 */
export function mastodonOwnedRoutes(): Router {
  const router = new Router();
  const refuse = (ctx: Context): void => {
    ctx.status = 403;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: MASTODON_OWNS_ACCOUNTS };
  };
  for (const path of OAUTH_PATHS) router.all(path, refuse);
  return router;
}
