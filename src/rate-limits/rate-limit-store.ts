/**
 * Counters shared by every process of a deployment. `increment` adds one to the key's count and
 * returns the new count; the key may be forgotten once `expiresAtMs` has passed.
 */
export interface RateLimitStore {
  increment(key: string, expiresAtMs: number): Promise<number>;
  close(): Promise<void>;
}
