import { createHash } from 'node:crypto';

/** How long a key is remembered, as Mastodon keeps `idempotency:status:<account>:<key>` (PostStatusService). */
export const IDEMPOTENCY_KEY_TTL_MS = 60 * 60 * 1000;

/** A client's Idempotency-Key, within one account and one kind of request (method and path). */
export interface IdempotencyKey {
  readonly accountId: string;
  readonly scope: string;
  readonly key: string;
}

/** The command a keyed request started: run again as it is (its ids, its time) when the key comes again. */
export interface KeyedCommand {
  /** Whence its events' ids (command-event-ids.ts). */
  readonly commandId: string;
  readonly startedAtMs: number;
  /** The command itself, as JSON-able data. */
  readonly command: unknown;
}

export interface Claim {
  readonly keyed: KeyedCommand;
  /** True when an earlier request with this key holds the record: `keyed` is that request's command. */
  readonly repeated: boolean;
}

/**
 * Where the Idempotency-Key records live: with the other state every API process shares (SQLite in
 * DATA_DIR, MongoDB with MONGODB_URL). Adapters translate their driver's errors as the account store's do.
 */
export interface IdempotencyStore {
  /**
   * Records `proposed` under `key` unless a record younger than IDEMPOTENCY_KEY_TTL_MS holds it, and
   * answers the record that holds it now. Atomic: of two requests claiming one key at once, both get
   * the same record.
   */
  claim(key: IdempotencyKey, proposed: KeyedCommand, nowMs: number): Promise<Claim>;
  close(): Promise<void>;
}

/**
 * The record's id: a hash of account, scope and key, so a key of any length or content is stored in a
 * fixed size and never reaches a query as anything but a hex string.
 */
export function recordIdOf({ accountId, scope, key }: IdempotencyKey): string {
  return createHash('sha256')
    .update(JSON.stringify([accountId, scope, key]))
    .digest('hex');
}
