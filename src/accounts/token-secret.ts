import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A token is `<token id>_<secret>`. The id finds the row without comparing secrets in a query; the
 * secret's SHA-256 is all that is stored, and it is compared with timingSafeEqual.
 */
export interface TokenParts {
  readonly tokenId: string;
  readonly secret: string;
}

export function mintSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function formatToken(tokenId: string, secret: string): string {
  return `${tokenId}_${secret}`;
}

export function splitToken(token: string): TokenParts | null {
  const match = /^([0-9]{1,19})_([A-Za-z0-9_-]{20,128})$/.exec(token);
  return match ? { tokenId: match[1]!, secret: match[2]! } : null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const hash = hashSecret(secret);
  return hash.length === storedHash.length && timingSafeEqual(hash, storedHash);
}
