import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * What the session stores keep of a session id or an auth secret: its SHA-256, in hex. Both are bearer
 * secrets (the cookies a browser sends), so a reader of the store (a backup, another local user) must
 * not be able to use them; 130 random bits need no salt nor a slow hash. Every look-up hashes the id
 * the browser sent, and a session's compose IDs point at the hash too.
 */
export const sessionKey = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Whether a sent secret is the one whose hash is stored, compared in constant time. */
export function matchesSessionKey(sent: string | undefined, storedHash: string | null): boolean {
  if (sent === undefined || storedHash === null) return false;
  const a = Buffer.from(sessionKey(sent), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A stored key: 64 hex digits. A session id as a browser holds it (26 of `[0-9a-v]`) never is one. */
export const isSessionKey = (value: string): boolean => /^[0-9a-f]{64}$/.test(value);
