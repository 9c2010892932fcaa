/** What the API process of the HTTP bench seeds, and tells the bench about it. */
export const LIST_SIZES = [1, 10, 100, 1000] as const;

export interface SeededApi {
  readonly url: string;
  readonly dataDir: string;
  /** Tokens: `main` (10 filters), `posts`, `puts`, and `size<n>` for each listed size. */
  readonly tokens: Record<string, string>;
  readonly putIds: readonly string[];
}
