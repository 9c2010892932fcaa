import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AccountError } from './account-store.ts';

/**
 * Passwords are kept only as `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url salt and key). The cost
 * parameters travel with each hash, so raising them later still verifies older hashes.
 */
const COST = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function checkPassword(password: string): void {
  if (password.length === 0) throw new AccountError('the password is empty');
  if (password.length > MAX_PASSWORD_LENGTH) throw new AccountError(`the password is longer than ${MAX_PASSWORD_LENGTH} characters`);
}

/** Mastodon's policy for a new password (Devise's password_length, 8..72), checked where one is set. */
export const NEW_PASSWORD_LENGTH = { min: 8, max: 72 } as const;

export function checkNewPassword(password: string): void {
  checkPassword(password);
  const length = [...password].length;
  if (length < NEW_PASSWORD_LENGTH.min) throw new AccountError(`the password is too short (minimum is ${NEW_PASSWORD_LENGTH.min} characters)`);
  if (length > NEW_PASSWORD_LENGTH.max) throw new AccountError(`the password is too long (maximum is ${NEW_PASSWORD_LENGTH.max} characters)`);
}

export async function hashPassword(password: string): Promise<string> {
  checkPassword(password);
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** False for a wrong password and for anything that is not a hash this module wrote. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt' || password.length > MAX_PASSWORD_LENGTH) return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Burns the same time as a real check, so an unknown username is not told apart by the clock. */
let decoy: Promise<string> | undefined;
export async function verifyAgainstNothing(password: string): Promise<false> {
  decoy ??= hashPassword('decoy password');
  await verifyPassword(password, await decoy);
  return false;
}
