import { CompiledFilters, type MatchableFilter } from '../../src/matching/compiled-filters.ts';
import type { FilterResult } from '../../src/matching/filter-result.ts';
import type { MatchableStatus } from '../../src/matching/searchable-text.ts';
import { newId } from '../../src/shared/ids.ts';

export const NOW = Date.parse('2026-06-01T12:00:00.000Z');

/** A filter as the v2 read model holds it; keywords are whole-word unless given as [keyword, false]. */
export function filter(
  overrides: Partial<MatchableFilter> & { words?: readonly (string | readonly [string, boolean])[]; statusIds?: readonly string[] } = {},
): MatchableFilter {
  const { words = [], statusIds = [], ...rest } = overrides;
  return {
    id: newId(),
    title: 'spoilers',
    context: ['home'],
    filterAction: 'warn',
    expiresAt: null,
    keywords: words.map((w) => (typeof w === 'string' ? { keyword: w, wholeWord: true } : { keyword: w[0], wholeWord: w[1] })),
    statuses: statusIds.map((statusId) => ({ statusId })),
    ...rest,
  };
}

export const status = (content: string, more: Partial<MatchableStatus> = {}): MatchableStatus => ({ id: '109000000000000001', content, ...more });

/** The FilterResults of one status against the given filters, matched at NOW. */
export function matchOne(filters: readonly MatchableFilter[], subject: MatchableStatus, context?: string): FilterResult[] {
  return CompiledFilters.compile(filters, NOW).match(subject, { now: NOW, context });
}

/** keyword_matches of a single whole-word or partial keyword against a plain-text status. */
export function keywordMatch(keyword: string, text: string, wholeWord = true): readonly string[] | null {
  const results = matchOne([filter({ words: [[keyword, wholeWord]] })], status(text));
  return results[0]?.keyword_matches ?? null;
}
