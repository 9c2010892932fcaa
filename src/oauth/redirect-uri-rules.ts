/**
 * Redirect URIs as Mastodon's Doorkeeper 5.x judges them, with Ruby's `URI.parse` (RFC 3986) where
 * Doorkeeper relies on it. Sources (doorkeeper v5.8.2): lib/doorkeeper/orm/active_record/redirect_uri_validator.rb,
 * lib/doorkeeper/oauth/helpers/uri_checker.rb; Mastodon's config/initializers/doorkeeper.rb
 * (`forbid_redirect_uri` data, vbscript, javascript; `force_ssl_in_redirect_uri false`).
 */

export const OOB = 'urn:ietf:wg:oauth:2.0:oob';

/** What Ruby's URI.parse makes of a URI reference; null where it raises URI::InvalidURIError. */
export interface ParsedUri {
  readonly scheme: string | null;
  readonly opaque: string | null;
  readonly userinfo: string | null;
  readonly host: string | null;
  readonly port: string | null;
  readonly path: string;
  readonly query: string | null;
  readonly fragment: string | null;
}

// Every character RFC 3986 allows, a percent sign only before two hex digits: anything else (controls,
// spaces, tabs, non-ASCII, `<>"{}|\^\``) makes URI.parse raise.
const ALLOWED = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const REFERENCE = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const AUTHORITY = /^(?:([^@]*)@)?(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::([0-9]*))?$/;

export function parseUri(value: string): ParsedUri | null {
  if (!ALLOWED.test(value)) return null;
  const match = REFERENCE.exec(value);
  if (!match) return null;
  const [, scheme = null, authority, rest = '', query = null, fragment = null] = match;
  // A scheme followed by anything but `/` (urn:foo:bar, javascript:..., localhost:3000) is opaque.
  if (scheme !== null && authority === undefined && rest !== '' && !rest.startsWith('/')) {
    return { scheme, opaque: query === null ? rest : `${rest}?${query}`, userinfo: null, host: null, port: null, path: '', query: null, fragment };
  }
  if (authority === undefined) return { scheme, opaque: null, userinfo: null, host: null, port: null, path: rest, query, fragment };
  const parts = AUTHORITY.exec(authority);
  if (!parts) return null;
  const [, userinfo = null, host = '', port = null] = parts;
  return { scheme, opaque: null, userinfo, host, port, path: rest, query, fragment };
}

const FORBIDDEN_SCHEMES = ['data', 'vbscript', 'javascript'];

/** Doorkeeper's redirect_uri errors, in its order; Mastodon's English for each (activerecord locale). */
const MESSAGES = {
  forbidden_uri: 'is forbidden by the server.',
  fragment_present: 'cannot contain a fragment.',
  unspecified_scheme: 'must specify a scheme.',
  relative_uri: 'must be an absolute URI.',
  invalid_uri: 'must be a valid URI.',
} as const;

/**
 * RedirectUriValidator#validate_each over the registered list (`value.split`: any whitespace separates):
 * every error of every URI, until one cannot be parsed at all, which adds `invalid_uri` and stops.
 */
export function redirectUriErrors(uris: readonly string[]): string[] {
  const errors: (keyof typeof MESSAGES)[] = [];
  for (const value of uris) {
    if (value === OOB) continue;
    const uri = parseUri(value);
    if (uri === null) {
      errors.push('invalid_uri');
      break;
    }
    const scheme = uri.scheme?.toLowerCase() ?? null;
    if (scheme !== null && FORBIDDEN_SCHEMES.includes(scheme)) errors.push('forbidden_uri');
    if (uri.fragment !== null) errors.push('fragment_present');
    if ((uri.opaque !== null && uri.opaque !== '') || scheme === 'localhost') errors.push('unspecified_scheme');
    if (uri.scheme === null && !uri.host) errors.push('relative_uri');
    if ((scheme === 'http' || scheme === 'https') && !uri.host) errors.push('invalid_uri');
  }
  return errors.map((error) => `Redirect URI ${MESSAGES[error]}`);
}

/** IPAddr.new(host).loopback?: an IP literal only (127.0.0.0/8, ::1); `localhost` is a name, not one. */
function isLoopback(host: string | null): boolean {
  if (host === null) return false;
  if (/^\[(?:::|(?:0{1,4}:){7})0{0,3}1\]$/.test(host)) return true;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return octets !== null && octets[1] === '127' && octets.slice(2).every((o) => Number(o) <= 255);
}

/**
 * URIChecker.matches?: the registered URI itself; or, when both are loopback IP literals, the same URI
 * on any port (RFC 8252 §7.3: a native app listens on whatever port it was given).
 */
export function redirectMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  const [a, b] = [parseUri(requested), parseUri(registered)];
  if (!a || !b || !isLoopback(a.host) || !isLoopback(b.host)) return false;
  return (
    a.scheme?.toLowerCase() === b.scheme?.toLowerCase() &&
    a.userinfo === b.userinfo &&
    a.host === b.host &&
    a.path === b.path &&
    a.query === b.query &&
    a.fragment === b.fragment
  );
}
