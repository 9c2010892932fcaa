import { allKnown, DEFAULT_SCOPES, splitScopes } from './oauth-scopes.ts';
import type { NewApp } from './oauth-store.ts';
import { redirectUriErrors } from './redirect-uri-rules.ts';

export { OOB } from './redirect-uri-rules.ts';

/** Mastodon's limits on an app (app/models/oauth/application.rb). */
const NAME_LIMIT = 60;
const URL_LIMIT = 2000;

export class AppValidationError extends Error {
  override readonly name = 'AppValidationError';
}

function isAbsoluteUri(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol !== '' && !/^javascript:/i.test(value);
  } catch {
    return false;
  }
}

/**
 * As Doorkeeper keeps them: a list is joined with newlines (models/application_mixin.rb `redirect_uri=`)
 * and the text split on any whitespace, so a newline inside one element is a second URI, checked as one.
 * Mastodon's limit is on that text (APP_REDIRECT_URI_LIMIT, 2,000 characters), not on a count.
 */
function redirectUris(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  const text = list.filter((u): u is string => typeof u === 'string').join('\n');
  const uris = text.split(/[ \t\n\v\f\r]+/).filter((u) => u !== '');
  const errors = uris.length === 0 ? ["Redirect URI can't be blank"] : redirectUriErrors(uris);
  if (text.length > URL_LIMIT) errors.push(`Redirect URI is too long (maximum is ${URL_LIMIT} characters)`);
  if (errors.length > 0) throw new AppValidationError(errors.join(', '));
  return [...new Set(uris)];
}

/** The params of POST /api/v1/apps, checked as Mastodon's model checks them; its message on failure. */
export function appFromParams(params: Record<string, unknown>): NewApp {
  const name = typeof params.client_name === 'string' ? params.client_name.trim() : '';
  if (name === '') throw new AppValidationError("Application name can't be blank");
  if (name.length > NAME_LIMIT) throw new AppValidationError(`Application name is too long (maximum is ${NAME_LIMIT} characters)`);
  const website = typeof params.website === 'string' && params.website !== '' ? params.website : null;
  if (website !== null && (website.length > URL_LIMIT || !/^https?:\/\//i.test(website) || !isAbsoluteUri(website))) {
    throw new AppValidationError('Website is invalid');
  }
  const uris = redirectUris(params.redirect_uris);
  const scopes = typeof params.scopes === 'string' ? splitScopes(params.scopes) : [...DEFAULT_SCOPES];
  if (!allKnown(scopes)) throw new AppValidationError("Scopes doesn't match configured on the server.");
  return { name, website, redirectUris: uris, scopes };
}
