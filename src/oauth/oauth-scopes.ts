/**
 * Mastodon's scopes (config/initializers/doorkeeper.rb): `read` is the default, and a family scope
 * (`read`, `write`, `admin:read`) covers every scope below it, as its ScopeTransformer reads them.
 */
const FAMILIES = ['read', 'write', 'follow', 'push', 'profile', 'admin:read', 'admin:write'] as const;
const READ = ['accounts', 'blocks', 'bookmarks', 'favourites', 'filters', 'follows', 'lists', 'mutes', 'notifications', 'search', 'statuses'];
const WRITE = [
  'accounts',
  'blocks',
  'bookmarks',
  'conversations',
  'favourites',
  'filters',
  'follows',
  'lists',
  'media',
  'mutes',
  'notifications',
  'reports',
  'statuses',
];
const ADMIN = ['accounts', 'reports', 'domain_allows', 'domain_blocks', 'ip_blocks', 'email_domain_blocks', 'canonical_email_blocks'];

export const MASTODON_SCOPES: ReadonlySet<string> = new Set([
  ...FAMILIES,
  ...READ.map((s) => `read:${s}`),
  ...WRITE.map((s) => `write:${s}`),
  ...ADMIN.map((s) => `admin:read:${s}`),
  ...ADMIN.map((s) => `admin:write:${s}`),
]);

export const DEFAULT_SCOPES: readonly string[] = ['read'];

/** Space-separated (Doorkeeper also takes `+` from a form); duplicates dropped, order kept. */
export function splitScopes(value: string): string[] {
  return [...new Set(value.split(/[\s+]+/).filter((s) => s !== ''))];
}

export function allKnown(scopes: readonly string[]): boolean {
  return scopes.length > 0 && scopes.every((s) => MASTODON_SCOPES.has(s));
}

/** Whether `held` grants `wanted`: itself, or the family it belongs to (`read` for `read:filters`). */
export function covers(held: readonly string[], wanted: string): boolean {
  if (held.includes(wanted)) return true;
  const parts = wanted.split(':');
  for (let i = parts.length - 1; i > 0; i -= 1) {
    if (held.includes(parts.slice(0, i).join(':'))) return true;
  }
  return false;
}

/** Doorkeeper asks that a requested scope be one of the app's own, each by name. */
export function withinApp(appScopes: readonly string[], requested: readonly string[]): boolean {
  return requested.every((s) => appScopes.includes(s));
}
