import type OAuth2Server from '@node-oauth/oauth2-server';
import type { Context } from 'koa';
import type { Actor } from '../accounts/account-events.ts';
import type { AccountLog } from '../accounts/account-log.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { splitToken } from '../accounts/token-secret.ts';
import type { ServiceClient, ServiceUser } from './oauth-model.ts';
import type { OAuthApp } from './oauth-store.ts';

const appActor = (app: OAuthApp): Actor => ({ kind: 'app', appId: app.id, clientId: app.clientId });

/**
 * Records the account token an app just received for a code (client_credentials tokens belong to no
 * account and are not an account's fact). It is recorded before the answer carries it: when the log
 * refuses, the token is revoked again, never shown, and the request fails (503).
 */
export async function recordIssued(ctx: Context, token: OAuth2Server.Token, accounts: AccountStore, log: AccountLog | undefined): Promise<void> {
  const { accountId } = token.user as ServiceUser;
  const parts = splitToken(token.accessToken);
  if (!log || accountId === null || !parts) return;
  const { app } = token.client as ServiceClient;
  const data = { accountId, tokenId: parts.tokenId, scopes: token.scope ?? [], appId: app.id, issuedAt: new Date().toISOString(), actor: appActor(app) };
  try {
    await log.record({ type: 'TokenIssued', data }, { requestId: String(ctx.state.requestId), source: 'oauth' });
  } catch (error) {
    await accounts.revokeTokenById(parts.tokenId);
    throw error;
  }
}

/** Records that an app revoked (POST /oauth/revoke) an account token it had been given. */
export async function recordRevoked(ctx: Context, tokenId: string, app: OAuthApp, accounts: AccountStore, log: AccountLog | undefined): Promise<void> {
  const token = log ? await accounts.findToken(tokenId) : null;
  if (!log || !token) return;
  const data = { accountId: token.accountId, tokenId, appRevoked: null, revokedAt: token.revokedAt ?? new Date().toISOString(), actor: appActor(app) };
  await log.record({ type: 'TokenRevoked', data }, { requestId: String(ctx.state.requestId), source: 'oauth' });
}
