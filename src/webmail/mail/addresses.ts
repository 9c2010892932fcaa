import addressparser from 'nodemailer/lib/addressparser/index.js';

const ADDRESS = /^[^\s@<>(),;:"\\]+@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** C0, DEL and C1: a line break in a recipient field would start a header of the sender's choosing. */
const isControl = (char: string): boolean => char < ' ' || (char >= '\u007f' && char <= '\u009f');
const ESCAPES: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };
/** The refused text as a person can read it: each control character as its escape (\r, \n, \u0000). */
const visible = (text: string): string =>
  Array.from(text, (char) => (isControl(char) ? (ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : char)).join('');

export type ParsedRecipients = { readonly addresses: readonly string[] } | { readonly invalid: string };

/**
 * Splits a recipient field ("Bob <bob@localhost>, carol@example.com; bob ...") into bare, lower-cased
 * addresses. Display names are dropped: the webmail shows and stores addresses only. A bare username
 * (`bob`, or `Bob <bob>`) is a local address, as at login and as Roundcube completes it with mail_domain.
 */
export function parseRecipients(field: string, localDomain: string): ParsedRecipients {
  // Checked before parsing: addressparser reads `a@x\r\nBcc: b@y` as b@y alone, and would drop a@x silently.
  if (Array.from(field).some(isControl)) return { invalid: visible(field) };
  const addresses: string[] = [];
  for (const entry of addressparser(field.replace(/;/g, ','), { flatten: true })) {
    const name = entry.name.trim();
    // addressparser reads a lone word as a display name: then that word is the address.
    const given = (entry.address.trim() || (/\s/.test(name) ? '' : name)).toLowerCase();
    if (given === '' && name === '') continue;
    const address = given !== '' && !given.includes('@') ? `${given}@${localDomain}` : given;
    if (!ADDRESS.test(address)) return { invalid: given || name };
    if (!addresses.includes(address)) addresses.push(address);
  }
  return { addresses };
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

export function localPartOf(address: string): string {
  return address.slice(0, address.lastIndexOf('@'));
}
