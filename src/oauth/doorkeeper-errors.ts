import type { Context } from 'koa';

/** Doorkeeper's English descriptions (config/locales/doorkeeper.en.yml), which Mastodon serves. */
const DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  unsupported_response_type: 'The authorization server does not support this response type.',
  access_denied: 'The resource owner or authorization server denied the request.',
  invalid_code_challenge_method: 'The code challenge method must be S256.',
} as const;

export type DoorkeeperError = keyof typeof DESCRIPTIONS;

export function describe(error: DoorkeeperError): string {
  return DESCRIPTIONS[error];
}

/** `{"error", "error_description"}`, 401 for a client that failed to authenticate, else 400 (or the given status). */
export function answerError(ctx: Context, error: DoorkeeperError, status?: number): void {
  ctx.status = status ?? (error === 'invalid_client' ? 401 : 400);
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: DESCRIPTIONS[error] };
}

/**
 * Doorkeeper's InvalidRequestResponse for a missing parameter (lib/doorkeeper/oauth/invalid_request_response.rb,
 * `missing_param` in config/locales/en.yml).
 */
export function answerMissingParam(ctx: Context, param: string): void {
  ctx.status = 400;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: `Missing required parameter: ${param}.` };
}

/**
 * What @node-oauth/oauth2-server threw, as Doorkeeper names it. Doorkeeper calls a missing client
 * credential `invalid_client` and a redirect URI other than the code's `invalid_grant`, where the
 * library says `invalid_request`.
 */
export function doorkeeperName(libraryError: { name: string; message: string }): DoorkeeperError | null {
  const { name, message } = libraryError;
  if (name === 'invalid_request' && /client_(id|secret)|client credentials/.test(message)) return 'invalid_client';
  if (name === 'invalid_request' && /redirect_uri|code_verifier/.test(message)) return 'invalid_grant';
  return name in DESCRIPTIONS ? (name as DoorkeeperError) : null;
}
