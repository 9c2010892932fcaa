import { createHash } from 'node:crypto';

/**
 * The id of the `index`-th event a command decides, the same every time that command is run again (a
 * retry after a timeout, a repeated Idempotency-Key), so the event store can tell a retried append from
 * a new one. Shaped as a UUIDv7 (RFC 9562): the command's start time in the first 48 bits keeps the ids
 * of a log growing with it (the SQLite index then grows at one end); the other 74 bits come from a hash
 * of the command id and the index instead of a random source.
 */
export function commandEventId(commandId: string, startedAtMs: number, index: number): string {
  const bytes = createHash('sha256').update(`${commandId}\n${index}`).digest().subarray(0, 16);
  const millis = BigInt(Math.max(0, Math.floor(startedAtMs))) & 0xffff_ffff_ffffn;
  for (let i = 0; i < 6; i += 1) bytes[i] = Number((millis >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
