import { randomInt } from 'node:crypto';

/**
 * Mastodon-style identifiers: milliseconds since the epoch shifted left by 16 bits, then 6 bits of a
 * worker number and a 10-bit sequence. Strings of digits, ordered by creation time, and unique across
 * filters, keywords, filter statuses, accounts and tokens, because no two live processes mint with the
 * same worker number: each leases its number through the shared store (worker-numbers.ts) before it
 * mints anything, and stops minting when it cannot renew the lease.
 */
export const WORKER_NUMBERS = 64;
const SEQUENCE_SIZE = 1024;

export class WorkerNumberUnavailableError extends Error {
  override readonly name = 'WorkerNumberUnavailableError';
}

/** Where newId gets this process's worker number; throws WorkerNumberUnavailableError when none is held. */
export interface WorkerNumberSource {
  current(): number;
}

let source: WorkerNumberSource | null = null;
let unleased: number | null = null;

export function mintIdsWith(leased: WorkerNumberSource | null): void {
  source = leased;
}

/**
 * For tests and benchmarks only: mint with a random worker number whenever no lease is held, as every
 * process did before worker numbers were leased (two processes then share one with a chance of 1 in 64).
 */
export function allowUnleasedIds(): void {
  unleased ??= randomInt(0, WORKER_NUMBERS);
}

function workerNumber(): bigint {
  if (source) return BigInt(source.current());
  if (unleased !== null) return BigInt(unleased);
  throw new WorkerNumberUnavailableError('this process holds no worker number, so it cannot mint ids');
}

let lastMillis = 0n;
let sequence = 0;

export function newId(nowMillis: number = Date.now()): string {
  const worker = workerNumber();
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
  return ((millis << 16n) | (worker << 10n) | BigInt(sequence)).toString();
}

/** The worker number an id was minted with. */
export function workerNumberOf(id: string): number {
  return Number((BigInt(id) >> 10n) & BigInt(WORKER_NUMBERS - 1));
}

const ID_PATTERN = /^[0-9]{1,19}$/;

/** Ids arrive from paths and bodies; anything that is not a plausible id cannot name a record. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
