import type OAuth2Server from '@node-oauth/oauth2-server';
import type { AccountStore } from '../accounts/account-store.ts';
import { splitToken } from '../accounts/token-secret.ts';
import { DEFAULT_SCOPES, withinApp } from './oauth-scopes.ts';
import type { OAuthApp, OAuthStore } from './oauth-store.ts';

/** What the library's `client` carries for this service. */
export interface ServiceClient extends OAuth2Server.Client {
  readonly id: string;
  readonly app: OAuthApp;
}

/** The library's `user`: an account, or nobody for an app-only (client_credentials) token. */
export interface ServiceUser extends OAuth2Server.User {
  readonly accountId: string | null;
}

export const GRANTS = ['authorization_code', 'client_credentials'];

const toClient = (app: OAuthApp): ServiceClient => ({ id: app.clientId, app, grants: GRANTS, redirectUris: [...app.redirectUris] });

/**
 * The model @node-oauth/oauth2-server drives for POST /oauth/token: it checks the grant, the client,
 * PKCE and the redirect URI; this says where apps, codes and tokens live. No refresh tokens: Mastodon
 * issues none, and its access tokens do not expire.
 */
export function oauthModel(store: OAuthStore, accounts: AccountStore): OAuth2Server.AuthorizationCodeModel & OAuth2Server.ClientCredentialsModel {
  return {
    async getClient(clientId: string, clientSecret: string | null) {
      const app = clientSecret === null ? await store.findApp(clientId) : await store.verifyClient(clientId, clientSecret);
      return app ? toClient(app) : null;
    },
    async getAuthorizationCode(code: string) {
      const grant = await store.findCode(code);
      const app = grant ? await store.findAppById(grant.appId) : null;
      if (!grant || !app) return null;
      return {
        authorizationCode: code,
        expiresAt: grant.expiresAt,
        redirectUri: grant.redirectUri,
        scope: [...grant.scopes],
        client: toClient(app),
        user: { accountId: grant.accountId } satisfies ServiceUser,
        ...(grant.codeChallenge ? { codeChallenge: grant.codeChallenge, codeChallengeMethod: grant.codeChallengeMethod ?? 'S256' } : {}),
      };
    },
    async saveAuthorizationCode() {
      throw new Error('codes are made by the consent page, not by the library');
    },
    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode) {
      return store.useCode(code.authorizationCode);
    },
    async getUserFromClient(): Promise<ServiceUser> {
      return { accountId: null };
    },
    async validateScope(user: OAuth2Server.User, client: OAuth2Server.Client, scope?: string[]) {
      const { app } = client as ServiceClient;
      const requested = scope && scope.length > 0 ? scope : [...DEFAULT_SCOPES];
      // A code's scopes were checked against the app when it was made; client_credentials' here.
      return withinApp(app.scopes, requested) ? requested : false;
    },
    async saveToken(token: OAuth2Server.Token, client: OAuth2Server.Client, user: OAuth2Server.User) {
      const { app } = client as ServiceClient;
      const { accountId } = user as ServiceUser;
      const scopes = token.scope ?? [...DEFAULT_SCOPES];
      let accessToken: string;
      if (accountId === null) {
        accessToken = await store.createAppToken(app.id, scopes);
      } else {
        accessToken = await accounts.createToken(accountId, scopes);
        await store.recordAccountToken(splitToken(accessToken)!.tokenId, app.id);
      }
      return { accessToken, scope: scopes, client, user };
    },
    async getAccessToken() {
      // Requests are authenticated by the API's own middleware (http/authentication.ts), not the library.
      return null;
    },
  };
}
