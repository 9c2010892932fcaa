/**
 * The benchmark's baseline: Mastodon's rules written the plain way, building each filter's pattern
 * anew for every status (`Regexp.union` of the keywords' regexes, `\b` as look-arounds on word
 * characters), then one regex search per filter. Same plain text, same results as the compiled matcher
 * on text without full case foldings (ß, ligatures), which is what the benchmark's statuses are.
 */
import type { MatchableFilter } from '../src/matching/compiled-filters.ts';
import { filterResultFilterJson, type FilterResult } from '../src/matching/filter-result.ts';
import { searchableText, type MatchableStatus } from '../src/matching/searchable-text.ts';

const WORD = '[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}]';
const word = new RegExp(`^${WORD}`, 'u');
const wordAtEnd = new RegExp(`${WORD}$`, 'u');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keywordPattern(keyword: string, wholeWord: boolean): string {
  const before = wholeWord && word.test(keyword) ? `(?<!${WORD})` : '';
  const after = wholeWord && wordAtEnd.test(keyword) ? `(?!${WORD})` : '';
  return `${before}${escape(keyword)}${after}`;
}

export function naiveMatch(filters: readonly MatchableFilter[], status: MatchableStatus, now: number): FilterResult[] {
  const text = searchableText(status);
  const results: FilterResult[] = [];
  for (const filter of filters) {
    if (filter.expiresAt !== null && Date.parse(filter.expiresAt) <= now) continue;
    let keywordMatches: string[] | null = null;
    if (filter.keywords.length > 0) {
      const pattern = new RegExp(filter.keywords.map((k) => keywordPattern(k.keyword, k.wholeWord)).join('|'), 'iu');
      const found = pattern.exec(text);
      keywordMatches = found ? [found[0]] : null;
    }
    let statusMatches: string[] | null = null;
    if (filter.statuses.length > 0) {
      const ids = new Set(filter.statuses.map((s) => s.statusId));
      // Ruby's `[id, reblog_of_id].compact & status_ids`: no nil, no duplicate.
      statusMatches = [...new Set([status.id, status.reblog_of_id])].filter((id): id is string => typeof id === 'string' && ids.has(id));
    }
    if (keywordMatches === null && (statusMatches === null || statusMatches.length === 0)) continue;
    results.push({ filter: filterResultFilterJson(filter), keyword_matches: keywordMatches, status_matches: statusMatches });
  }
  return results;
}
