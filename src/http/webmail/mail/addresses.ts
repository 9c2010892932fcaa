import addressparser from 'nodemailer/lib/addressparser/index.js';

const ADDRESS = /^[^\s@<>(),;:"\\]+@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

export type ParsedRecipients = { readonly addresses: readonly string[] } | { readonly invalid: string };

/**
 * Splits a recipient field ("Bob <bob@localhost>, carol@example.com; ...") into bare, lower-cased
 * addresses. Display names are dropped: the webmail shows and stores addresses only.
 */
export function parseRecipients(field: string): ParsedRecipients {
  const addresses: string[] = [];
  for (const entry of addressparser(field.replace(/;/g, ','), { flatten: true })) {
    const address = entry.address.trim().toLowerCase();
    if (address === '' && entry.name.trim() === '') continue;
    if (!ADDRESS.test(address)) return { invalid: address || entry.name };
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
