import { randomInt } from 'node:crypto';

/**
 * Mastodon-style identifiers: milliseconds since the epoch shifted left by 16 bits, then 6 bits of a
 * per-process worker number and a 10-bit sequence. Strings of digits, ordered by creation time, and
 * unique across filters, keywords, filter statuses, accounts and tokens. The random worker number keeps
 * two processes on one data directory (server and CLI) from minting the same id in the same millisecond.
 */
const WORKER = BigInt(randomInt(0, 64));
const SEQUENCE_SIZE = 1024;

let lastMillis = 0n;
let sequence = 0;

export function newId(nowMillis: number = Date.now()): string {
  let millis = BigInt(nowMillis);
  if (millis < lastMillis) millis = lastMillis;
  if (millis === lastMillis) {
    sequence += 1;
    if (sequence >= SEQUENCE_SIZE) {
      millis = lastMillis + 1n;
      sequence = 0;
    }
  } else {
    sequence = randomInt(0, SEQUENCE_SIZE / 2);
  }
  lastMillis = millis;
  return ((millis << 16n) | (WORKER << 10n) | BigInt(sequence)).toString();
}

const ID_PATTERN = /^[0-9]{1,19}$/;

/** Ids arrive from paths and bodies; anything that is not a plausible id cannot name a record. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
