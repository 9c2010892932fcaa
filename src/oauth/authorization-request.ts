import { OOB, redirectMatches, redirectUriErrors } from './redirect-uri-rules.ts';
import type { DoorkeeperError } from './doorkeeper-errors.ts';
import { allKnown, DEFAULT_SCOPES, splitScopes, withinApp } from './oauth-scopes.ts';
import type { OAuthApp } from './oauth-store.ts';
import type { PageRequest } from './consent-page.ts';

const param = (params: Record<string, unknown>, name: string): string => {
  const value = params[name];
  return typeof value === 'string' ? value : '';
};

/** A request the app can be told about at its redirect URI (or, for oob, on the page). */
export interface Redirectable {
  readonly app: OAuthApp;
  readonly redirectUri: string;
  readonly state: string;
}

export type Checked =
  | { readonly kind: 'fatal'; readonly error: DoorkeeperError }
  | ({ readonly kind: 'redirect-error'; readonly error: DoorkeeperError } & Redirectable)
  | ({ readonly kind: 'ok'; readonly scopes: readonly string[]; readonly page: PageRequest } & Redirectable);

/**
 * Doorkeeper's pre-authorization, in its order: the client and its redirect URI first (failures there
 * are shown, never sent to an unverified address), then response type, scope and PKCE (sent back to the app).
 */
export function checkAuthorization(app: OAuthApp | null, params: Record<string, unknown>): Checked {
  if (!app) return { kind: 'fatal', error: 'invalid_client' };
  const given = param(params, 'redirect_uri');
  // Doorkeeper takes the app's only redirect URI when the request names none.
  const redirectUri = given === '' && app.redirectUris.length === 1 ? app.redirectUris[0]! : given;
  // URIChecker.valid_for_authorization?: a registered URI, or a loopback one on another port.
  const registered = redirectUri === OOB || redirectUriErrors([redirectUri]).length === 0;
  if (!registered || !app.redirectUris.some((uri) => redirectMatches(redirectUri, uri))) return { kind: 'fatal', error: 'invalid_redirect_uri' };
  const state = param(params, 'state');
  const base = { app, redirectUri, state };
  if (param(params, 'response_type') !== 'code') return { kind: 'redirect-error', error: 'unsupported_response_type', ...base };
  const scopeParam = param(params, 'scope');
  const scopes = scopeParam === '' ? [...DEFAULT_SCOPES] : splitScopes(scopeParam);
  if (!allKnown(scopes) || !withinApp(app.scopes, scopes)) return { kind: 'redirect-error', error: 'invalid_scope', ...base };
  const challenge = param(params, 'code_challenge');
  const method = param(params, 'code_challenge_method');
  if (challenge !== '' && method !== 'S256') return { kind: 'redirect-error', error: 'invalid_code_challenge_method', ...base };
  if (challenge !== '' && !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) return { kind: 'redirect-error', error: 'invalid_request', ...base };
  const page: PageRequest = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: challenge === '' ? '' : method,
  };
  return { kind: 'ok', scopes, page, ...base };
}

/** Where the browser goes with a code or an error: the redirect URI with them (and `state`) in its query. */
export function redirectTarget(redirectUri: string, values: Record<string, string>, state: string): string | null {
  if (redirectUri === OOB) return null;
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(values)) url.searchParams.set(key, value);
  if (state !== '') url.searchParams.set('state', state);
  return url.toString();
}
