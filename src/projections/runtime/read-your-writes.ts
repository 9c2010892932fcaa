/** Read-your-writes: resolves true once the read models have passed `position`, false on time-out. */
export interface CatchUp {
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
}
