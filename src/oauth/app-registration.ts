import { allKnown, DEFAULT_SCOPES, splitScopes } from './oauth-scopes.ts';
import type { NewApp } from './oauth-store.ts';

export const OOB = 'urn:ietf:wg:oauth:2.0:oob';

/** Mastodon's limits on an app (app/models/doorkeeper/application's validations). */
const NAME_LIMIT = 60;
const URL_LIMIT = 2000;
const REDIRECT_URIS_LIMIT = 20;

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

function redirectUris(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\s+/) : [];
  const uris = list.filter((u): u is string => typeof u === 'string' && u !== '');
  if (uris.length === 0) throw new AppValidationError("Redirect URI can't be blank");
  if (uris.length > REDIRECT_URIS_LIMIT) throw new AppValidationError(`Redirect URI is too long (maximum is ${REDIRECT_URIS_LIMIT} URIs)`);
  for (const uri of uris) {
    if (uri === OOB) continue;
    if (uri.length > URL_LIMIT) throw new AppValidationError(`Redirect URI is too long (maximum is ${URL_LIMIT} characters)`);
    if (!isAbsoluteUri(uri)) throw new AppValidationError('Redirect URI must be an absolute URI.');
    if (uri.includes('#')) throw new AppValidationError('Redirect URI cannot contain a fragment.');
  }
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
