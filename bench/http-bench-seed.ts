/** What the API process of the HTTP bench seeds, and tells the bench about it. */
export const LIST_SIZES = [1, 10, 100, 1000] as const;

/**
 * Accounts the POST and PUT cases spread their writes over, round robin: each gets a hundredth of a
 * run's writes, far from the per-account limits (1,000 filters, 100,000 keyword characters), so every
 * answer is the write measured, never a 422.
 */
export const WRITE_ACCOUNTS = 100;

/**
 * Accounts the POST-then-DELETE case writes to, by their size. Not nearer the limit of 1,000: with creates
 * and deletes racing on one account, a delete's shrink can fail to settle on the usage ledger (it then
 * stays high, docs/api.md "Limits"), and at 984 filters the ledger passed 1,000 within a run (422s).
 */
export const POST_SIZES = [1, 100, 500] as const;

export interface SeededApi {
  readonly url: string;
  readonly dataDir: string;
  /** Tokens: `main` (10 filters) and `size<n>` for each listed size. */
  readonly tokens: Record<string, string>;
  /** One token per account the POST case spreads its creates over. */
  readonly postTokens: readonly string[];
  /** `<token> <filter id>` of the filters the PUT case cycles through, of many accounts. */
  readonly putTargets: readonly string[];
  /** `<token> <filter id>` lines of the account of each listed size, for the write cost against account size. */
  readonly sizeTargets: Record<string, readonly string[]>;
  /** A token of an account of each of POST_SIZES filters, by `post<n>`. */
  readonly postSizeTokens: Record<string, string>;
}
