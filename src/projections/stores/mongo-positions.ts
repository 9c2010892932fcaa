import type { Long } from 'mongodb';

/**
 * Log positions in MongoDB. An int64 cannot hold EventStoreDB's full positions (commit and prepare packed
 * into up to 128 bits), so positions are stored as fixed-width decimal strings, whose string order is
 * their numeric order. Documents written before that hold a Long; they are read as well.
 */
const DIGITS = 39; // 2^128 - 1 has 39 digits.

export type StoredPosition = string | Long;

export function toStoredPosition(position: bigint): string {
  if (position < 0n || position >= 2n ** 128n) throw new RangeError(`position out of range: ${position}`);
  return position.toString().padStart(DIGITS, '0');
}

export const fromStoredPosition = (stored: StoredPosition): bigint => (typeof stored === 'string' ? BigInt(stored) : stored.toBigInt());

/**
 * Matches a stored position lower than `position`, or one kept as a Long by older versions (a string is
 * never $gte-compared with a number, so $not lets those through to be replaced).
 */
export const belowPosition = (position: bigint) => ({ $not: { $gte: toStoredPosition(position) } });
