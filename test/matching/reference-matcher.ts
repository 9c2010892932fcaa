import { foldString } from '../../src/matching/case-folding.ts';
import type { MatchableFilter } from '../../src/matching/compiled-filters.ts';
import { endsWithWordCharacter, isWordBoundary, startsWithWordCharacter } from '../../src/matching/word-characters.ts';

/**
 * Mastodon's first keyword match of one filter, by brute force and without an automaton: at each
 * character of the text from the left, each keyword in order, comparing folded code points character
 * by character; an occurrence starts and ends on whole characters, and a whole-word keyword needs
 * Ruby's `\b` where it starts (ends) with a word character. Quadratic and slow, and plainly right.
 */
export function referenceFirstMatch(filter: MatchableFilter, text: string): string | null {
  const keywords = filter.keywords.map(({ keyword, wholeWord }) => ({
    folded: foldString(keyword),
    before: wholeWord && startsWithWordCharacter(keyword),
    after: wholeWord && endsWithWordCharacter(keyword),
  }));
  for (let start = 0; start < text.length; start += text.codePointAt(start)! > 0xffff ? 2 : 1) {
    for (const keyword of keywords) {
      if (keyword.folded.length === 0) continue;
      if (keyword.before && !isWordBoundary(text, start)) continue;
      const end = occurrenceEnd(text, start, keyword.folded);
      if (end < 0 || (keyword.after && !isWordBoundary(text, end))) continue;
      return text.slice(start, end);
    }
  }
  return null;
}

/** Where the folded keyword, read from `start` on whole characters, ends in the text; -1 if it does not. */
function occurrenceEnd(text: string, start: number, folded: readonly number[]): number {
  let matched = 0;
  let index = start;
  while (matched < folded.length && index < text.length) {
    const char = String.fromCodePoint(text.codePointAt(index)!);
    for (const codePoint of foldString(char)) if (folded[matched++] !== codePoint) return -1;
    index += char.length;
  }
  return matched === folded.length ? index : -1;
}
