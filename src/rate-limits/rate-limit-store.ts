/** One key's share of a batch: add `by` to its count; the key may be forgotten once `expiresAtMs` has passed. */
export interface CounterIncrement {
  readonly key: string;
  readonly by: number;
  readonly expiresAtMs: number;
}

/**
 * Counters shared by every process of a deployment. `incrementAll` adds each increment (distinct keys)
 * to its key's count, each exactly once, and returns the new counts in the same order. Requests never
 * call it one by one: `BatchedCounter` gathers the counts of an event-loop turn into one call.
 */
export interface RateLimitStore {
  incrementAll(increments: readonly CounterIncrement[]): Promise<readonly number[]>;
  close(): Promise<void>;
}
