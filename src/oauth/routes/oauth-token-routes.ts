import Router from '@koa/router';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Context } from 'koa';
import type { AccountStore } from '../../accounts/account-store.ts';
import { splitToken } from '../../accounts/token-secret.ts';
import type { AccountLog } from '../../accounts/account-log.ts';
import { recordIssued, recordRevoked } from '../app-token-facts.ts';
import { paramsOf } from '../../http/route-context.ts';
import { requestParams } from '../../http/request-params.ts';
import { answerError, answerMissingParam, doorkeeperName } from '../doorkeeper-errors.ts';
import { GRANTS, oauthModel } from '../oauth-model.ts';
import { MASTODON_SCOPES } from '../oauth-scopes.ts';
import { redirectMatches } from '../redirect-uri-rules.ts';
import type { OAuthStore } from '../oauth-store.ts';

export interface OAuthRouteDeps {
  readonly oauth: OAuthStore;
  readonly accounts: AccountStore;
  /** Where tokens issued to and revoked by apps are recorded (the account's story); none: not recorded. */
  readonly accountLog?: AccountLog;
}

/** Only plain string parameters reach the library; a nested or repeated one is as if absent. */
function stringParams(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(paramsOf(ctx))) if (typeof value === 'string') out[key] = value;
  return out;
}

/** Client credentials from HTTP Basic or the body, as Doorkeeper takes them. */
function clientCredentials(ctx: Context, params: Record<string, string>): { id: string; secret: string } | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(ctx.get('authorization'));
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  }
  return params.client_id && params.client_secret ? { id: params.client_id, secret: params.client_secret } : null;
}

function serverMetadata(origin: string) {
  return {
    issuer: `${origin}/`,
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    app_registration_endpoint: `${origin}/api/v1/apps`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    scopes_supported: [...MASTODON_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  };
}

/**
 * Doorkeeper's AuthorizationCodeRequest#validate_params, checked before the client and the code
 * (lib/doorkeeper/oauth/authorization_code_request.rb): a PKCE code without `code_verifier`, then no
 * `redirect_uri`; the missing one's name, or null. The code is only looked at here, not used. As its
 * validate_redirect_uri (URIChecker.valid_for_authorization?), a loopback `redirect_uri` on another
 * port than the code's is the code's: the library, which compares exactly, is handed the code's.
 */
async function checkCodeParams(oauth: OAuthStore, params: Record<string, string>): Promise<string | null> {
  const grant = params.code ? await oauth.findCode(params.code) : null;
  if (grant?.codeChallenge && !params.code_verifier) return 'code_verifier';
  if (!params.redirect_uri) return 'redirect_uri';
  if (grant && redirectMatches(params.redirect_uri, grant.redirectUri)) params.redirect_uri = grant.redirectUri;
  return null;
}

/** Doorkeeper's revocation_error_response, with status :forbidden. */
function refuseRevocation(ctx: Context): void {
  ctx.status = 403;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' };
}

/** POST /oauth/token, POST /oauth/revoke and GET /.well-known/oauth-authorization-server. */
export function oauthTokenRoutes({ oauth, accounts, accountLog }: OAuthRouteDeps): Router {
  const server = new OAuth2Server({
    model: oauthModel(oauth, accounts),
    // Mastodon's tokens never expire; the library wants a number, and its expiry is not answered or kept.
    accessTokenLifetime: 100 * 365 * 24 * 3600,
    allowEmptyState: true,
  });
  const router = new Router();
  router.get('/.well-known/oauth-authorization-server', (ctx) => {
    ctx.body = serverMetadata(`${ctx.protocol}://${ctx.host}`);
  });
  router.post('/oauth/token', requestParams(), async (ctx) => {
    const params = stringParams(ctx);
    // The library knows password and refresh_token grants too; this service issues neither (Doorkeeper's answer for an unconfigured flow).
    if (params.grant_type && !GRANTS.includes(params.grant_type)) return answerError(ctx, 'unsupported_grant_type');
    const missing = params.grant_type === 'authorization_code' ? await checkCodeParams(oauth, params) : null;
    if (missing) return answerMissingParam(ctx, missing);
    // The library reads only forms; Doorkeeper also takes JSON and query parameters, so they are handed over as one.
    const request = new OAuth2Server.Request({
      method: 'POST',
      query: {},
      headers: { authorization: ctx.get('authorization'), 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1' },
      body: params,
    });
    try {
      const token = await server.token(request, new OAuth2Server.Response());
      await recordIssued(ctx, token, accounts, accountLog);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        access_token: token.accessToken,
        token_type: 'Bearer',
        scope: (token.scope ?? []).join(' '),
        created_at: Math.floor(Date.now() / 1000),
      };
    } catch (error) {
      const name = error instanceof OAuth2Server.OAuthError ? doorkeeperName(error) : null;
      // A store's failure, wrapped by the library as server_error, goes on to jsonErrors as itself (a 503 for an outage).
      if (name === null) throw (error as { inner?: unknown }).inner ?? error;
      answerError(ctx, name);
    }
  });
  router.post('/oauth/revoke', requestParams(), async (ctx) => {
    const params = stringParams(ctx);
    const credentials = clientCredentials(ctx, params);
    const app = credentials ? await oauth.verifyClient(credentials.id, credentials.secret) : null;
    // Doorkeeper's validate_presence_of_client (app/controllers/doorkeeper/tokens_controller.rb): no
    // client, or a wrong secret, is the same 403 as another app's token.
    if (!app) return refuseRevocation(ctx);
    const token = params.token ?? '';
    const parts = splitToken(token);
    // RFC 7009, as Doorkeeper: an unknown token is answered as revoked, so the answer tells nothing.
    const issuer = parts ? await oauth.appOfToken(parts.tokenId) : null;
    if (issuer && issuer.id !== app.id) return refuseRevocation(ctx);
    if (issuer) {
      if (await accounts.revokeToken(token)) await recordRevoked(ctx, parts!.tokenId, issuer, accounts, accountLog);
      else await oauth.revokeAppToken(token);
    }
    ctx.body = {};
  });
  return router;
}
