import type { Keyword } from '../../events/filter-events.ts';

/**
 * Per-filter and per-account limits (README "Limits"). Mastodon has none, but its rows are small; here
 * they keep every store and the matcher bounded: one event carries at most one request's change to one
 * filter (far below EventStoreDB's 1 MiB MaxAppendSize), a read-model document at most one filter's
 * settings, keyword or status (far below MongoDB's 16 MiB), and an account's matcher is built from at
 * most KEYWORD_CHARACTERS_PER_ACCOUNT characters. No real user comes near any of them.
 */
export const FILTER_LIMITS = {
  keywordsPerFilter: 1_000,
  /** Code points summed over a filter's keywords. */
  keywordCharactersPerFilter: 20_000,
  statusesPerFilter: 1_000,
  filtersPerAccount: 1_000,
  /** Code points summed over the keywords of every filter of the account: what its matcher is built from. */
  keywordCharactersPerAccount: 100_000,
} as const;

/** What the account's other filters (all but the one a command is about) already hold. */
export interface AccountUsage {
  readonly filters: number;
  readonly keywordCharacters: number;
}

/** Code points, as Ruby counts characters, without building an array of them. */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

export const keywordCharacters = (keywords: readonly Pick<Keyword, 'keyword'>[]): number => keywords.reduce((sum, k) => sum + codePoints(k.keyword), 0);

/**
 * The limit messages of a filter as it would be saved, worded as Rails words its validations. A limit is
 * judged only where the change grows what it counts, so a filter or account over a limit (lowered since)
 * can always shrink.
 */
export function filterLimitProblems(before: readonly Keyword[], after: readonly Keyword[], usage: AccountUsage | undefined): string[] {
  const problems: string[] = [];
  const { keywordsPerFilter, keywordCharactersPerFilter, keywordCharactersPerAccount } = FILTER_LIMITS;
  if (after.length > before.length && after.length > keywordsPerFilter) {
    problems.push(`Keywords are too many (maximum is ${keywordsPerFilter} per filter)`);
  }
  const charsBefore = keywordCharacters(before);
  const charsAfter = keywordCharacters(after);
  if (charsAfter > charsBefore && charsAfter > keywordCharactersPerFilter) {
    problems.push(`Keywords are too long together (maximum is ${keywordCharactersPerFilter} characters per filter)`);
  }
  if (usage && charsAfter > charsBefore && usage.keywordCharacters + charsAfter > keywordCharactersPerAccount) {
    problems.push(`Keywords are too long together (maximum is ${keywordCharactersPerAccount} characters per account)`);
  }
  return problems;
}

export function accountFilterProblems(usage: AccountUsage | undefined): string[] {
  if (!usage || usage.filters < FILTER_LIMITS.filtersPerAccount) return [];
  return [`Filters are too many (maximum is ${FILTER_LIMITS.filtersPerAccount} per account)`];
}

export function statusLimitProblems(statuses: number): string[] {
  if (statuses < FILTER_LIMITS.statusesPerFilter) return [];
  return [`Statuses are too many (maximum is ${FILTER_LIMITS.statusesPerFilter} per filter)`];
}
