/**
 * The one place that decides what a secret looks like, so no credential reaches a log line, a metric
 * label, /health or an error body. Every JSON log line passes through `redact` (logger.ts), and so do
 * the webmail's own log files and the error texts that /health reports.
 */

const HIDDEN = '***';

// The user-info of any URL (`nats://user:pw@`, `redis://:pw@`, `mongodb+srv://u:p@`, `nats://token@`):
// the user name can be the secret itself (a NATS token), so all of it goes.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

// Query parameters and form-like pairs that carry secrets (`?access_token=`, `&_token=`, `password=`).
// The value ends where a URI ends in a log line too: `(GET /webmail/?_token=abc)` keeps its `)`.
const SECRET_PARAMS = /([?&;\s"]|^)((?:access_token|_token|token|password|passwd|pass|_pass|secret|client_secret)=)[^&\s"';)#<>]*/gi;

// An NKEY seed (S + key type + base32), as a .creds file or NATS_NKEY holds it.
const NKEY_SEED = /\bS[UACNOPX][A-Z2-7]{56}\b/g;

// A bearer credential in a header someone logged whole.
const BEARER = /\b(Bearer\s+)[^\s"',]+/gi;

const known = new Set<string>();

/**
 * Remembers values that are secrets wherever they appear (a NATS token, the password in a URL), so that
 * even a driver's message that quotes one in its own way is cleaned. Short values are not remembered:
 * replacing every `ab` of a log would make it unreadable and protect little.
 */
export function rememberSecret(value: string | undefined): void {
  if (value === undefined) return;
  const trimmed = value.trim();
  if (trimmed.length < 4) return;
  known.add(trimmed);
  // As it appears inside a JSON log line.
  known.add(JSON.stringify(trimmed).slice(1, -1));
  try {
    const decoded = decodeURIComponent(trimmed);
    if (decoded !== trimmed && decoded.length >= 4) known.add(decoded);
  } catch {
    // Not percent-encoded text: the value itself is remembered.
  }
}

const SECRET_NAME = /(^|_)(TOKEN|PASSWORD|PASS|SECRET|CREDS|KEY|SEED)$/;

/** The secrets of a process's settings: every URL's user-info, and every variable named like a secret. */
export function rememberSecretsOf(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (SECRET_NAME.test(name)) rememberSecret(value);
    for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/?#@]+)@/gi)) {
      const userInfo = match[1]!;
      rememberSecret(userInfo);
      const colon = userInfo.indexOf(':');
      // A password after the colon; a lone user name may be a token (nats://<token>@host).
      rememberSecret(colon >= 0 ? userInfo.slice(colon + 1) : userInfo);
    }
  }
}

/** `text` with every credential it carries replaced by `***`. Linear in the text (no backtracking patterns). */
export function redact(text: string): string {
  // Every log line passes here: a pattern that needs a literal the text lacks is not run (the URL one
  // alone cost some 5 us on a request's line, which has neither `://` nor `@` nor `=`).
  let result = text.includes('://') && text.includes('@') ? text.replace(URL_USERINFO, `$1${HIDDEN}@`) : text;
  if (result.includes('=')) result = result.replace(SECRET_PARAMS, `$1$2${HIDDEN}`);
  result = result.replace(NKEY_SEED, HIDDEN);
  result = result.replace(BEARER, `$1${HIDDEN}`);
  for (const secret of known) if (result.includes(secret)) result = result.split(secret).join(HIDDEN);
  return result;
}

/** For messages and start-up lines: a URL (or a list of them) without credentials. */
export const redactUrl = (url: string): string => redact(url);
