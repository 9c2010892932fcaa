import Router from '@koa/router';
import type { Context } from 'koa';
import type { AccountStore } from '../../accounts/account-store.ts';
import { authenticate, type AuthState } from '../../http/authentication.ts';
import { HttpError } from '../../http/http-errors.ts';
import { requestParams } from '../../http/request-params.ts';
import { paramsOf } from '../../http/route-context.ts';
import { appFromParams, AppValidationError } from '../app-registration.ts';
import type { OAuthApp, OAuthStore } from '../oauth-store.ts';

/** Mastodon's Application entity, as POST /api/v1/apps and verify_credentials answer it (no push: no vapid_key). */
function appEntity(app: OAuthApp) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes,
    redirect_uri: app.redirectUris.join('\n'),
    redirect_uris: app.redirectUris,
  };
}

async function noStore(ctx: Context, next: () => Promise<void>): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  await next();
}

/** POST /api/v1/apps (public) and GET /api/v1/apps/verify_credentials (any token of an app). */
export function appsRoutes(oauth: OAuthStore, accounts: AccountStore): Router {
  const router = new Router();
  router.post('/api/v1/apps', noStore, requestParams(), async (ctx) => {
    let app;
    try {
      app = appFromParams(paramsOf(ctx));
    } catch (error) {
      if (error instanceof AppValidationError) throw new HttpError(422, `Validation failed: ${error.message}`);
      throw error;
    }
    const created = await oauth.createApp(app);
    ctx.body = { ...appEntity(created.app), client_id: created.app.clientId, client_secret: created.clientSecret, client_secret_expires_at: 0 };
  });
  const appTokens = (token: string) => oauth.authenticateAppToken(token);
  router.get('/api/v1/apps/verify_credentials', noStore, authenticate(accounts, appTokens), async (ctx) => {
    const state = ctx.state as AuthState & { appOnly?: { app?: OAuthApp } };
    const app = state.appOnly?.app ?? (await oauth.appOfToken(state.grant.tokenId));
    // A token made with the CLI belongs to no app (Mastodon has no such token): nothing to verify.
    if (!app || app.revokedAt !== null) throw new HttpError(401, 'The access token is invalid');
    ctx.body = appEntity(app);
  });
  return router;
}
