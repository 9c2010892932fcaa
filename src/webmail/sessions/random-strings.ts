import { randomInt } from 'node:crypto';

const ALPHANUMERIC = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SESSION_ALPHABET = '0123456789abcdefghijklmnopqrstuv';

function pick(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Roundcube's request token: 32 characters of `[0-9A-Za-z]` from a CSPRNG. */
export const newRequestToken = (): string => pick(ALPHANUMERIC, 32);

/** Shaped like a PHP session id (26 characters of `[0-9a-v]`, 130 random bits). */
export const newSessionId = (): string => pick(SESSION_ALPHABET, 26);

/** Like Roundcube's `uniqid(mt_rand())`: a random decimal number followed by 13 hex digits. */
export function newComposeId(): string {
  return `${randomInt(1, 2 ** 31)}${pick('0123456789abcdef', 13)}`;
}

export const isRequestToken = (value: string): boolean => /^[0-9A-Za-z]{32}$/.test(value);

/** A compose attachment's id (Roundcube shows it as `rcmfile<id>`): 16 hex digits. */
export const newAttachmentId = (): string => pick('0123456789abcdef', 16);
