/**
 * A search of one folder, as Roundcube's quick search: the text, and the fields it is looked for in
 * (Roundcube's `_headers`, e.g. `subject,from`). A message matches when any field contains the text,
 * in any case.
 */
export const SEARCH_FIELDS = ['subject', 'from', 'to', 'body'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export type MailSearch = { readonly text: string; readonly fields: readonly SearchField[] };

/** What one search may ask for: docs/webmail.md lists these. */
export const SEARCH_LIMITS = {
  /** The longest search text, in characters; a longer one is refused, not cut. */
  textChars: 200,
} as const;

/** Roundcube's default search fields for a folder other than Sent. */
export const DEFAULT_SEARCH_FIELDS: readonly SearchField[] = ['subject', 'from'];

export type SearchInput =
  { readonly kind: 'none' } | { readonly kind: 'search'; readonly search: MailSearch } | { readonly kind: 'refused'; readonly reason: string };

/**
 * `_q` and `_headers` as a search: none when `_q` is empty; refused when the text is too long, holds a
 * control character (it could end an IMAP command's line) or names an unknown field.
 */
export function searchInput(q: string | undefined, headers: string | undefined): SearchInput {
  const text = (q ?? '').trim();
  if (text === '') return { kind: 'none' };
  if (text.length > SEARCH_LIMITS.textChars) return { kind: 'refused', reason: `The search text is longer than ${SEARCH_LIMITS.textChars} characters.` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return { kind: 'refused', reason: 'The search text holds a control character.' };
  const named = (headers ?? '').split(',').filter(Boolean);
  if (named.some((field) => !(SEARCH_FIELDS as readonly string[]).includes(field))) return { kind: 'refused', reason: 'Unknown search field.' };
  const fields = named.length === 0 ? DEFAULT_SEARCH_FIELDS : SEARCH_FIELDS.filter((field) => named.includes(field));
  return { kind: 'search', search: { text, fields } };
}
