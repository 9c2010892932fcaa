import assert from 'node:assert/strict';
import { CompiledFilters, type MatchableFilter } from '../../src/matching/compiled-filters.ts';
import { searchableText } from '../../src/matching/searchable-text.ts';
import { filter, NOW } from './filter-fixtures.ts';
import { referenceFirstMatch } from './reference-matcher.ts';

function randomGenerator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const below = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]) => items[below(items.length)]!;
  return { next, below, pick };
}
type Random = ReturnType<typeof randomGenerator>;

// Case-folding traps: full foldings (ß, ẞ, ﬁ, ŉ, ΐ), Kelvin and long s, final sigma, dotted I, marks.
const TRAPS = [...'sSßẞſfiFIﬁﬃkKKnŉʼΐιΙσςΣİi̇\u0301'];
const PUNCTUATION = [...' .-_#\n'];
const CJK = Array.from({ length: 3000 }, (_, k) => String.fromCodePoint(0x4e00 + k));

/** Keyword sets of the shapes that broke or slowed earlier matchers, over a small alphabet so they occur. */
const SHAPES: Record<string, (r: Random) => { keywords: string[]; alphabet: string[] }> = {
  'suffix chains': (r) => {
    const letter = r.pick(['a', 's', 'ß', 'k']);
    return {
      keywords: Array.from({ length: 2 + r.below(12) }, (_, k) => r.pick(['', '.', ' ']) + letter.repeat(k + 1)),
      alphabet: [letter, 'S', ' ', '.', 'b'],
    };
  },
  'shared prefixes': (r) => {
    const stem = r.pick(['ab', 'a b', 'ss', 'fi']);
    return {
      keywords: Array.from({ length: 2 + r.below(10) }, () => stem + r.pick(['', 'a', 'b', ' ', 'ß', 'c']).repeat(r.below(4))),
      alphabet: [...'abcsfi ßﬁ'],
    };
  },
  'many distinct characters': (r) => {
    const alphabet = Array.from({ length: 40 }, () => r.pick(CJK)).concat([' ', 'a']);
    return { keywords: Array.from({ length: 2 + r.below(20) }, () => Array.from({ length: 1 + r.below(4) }, () => r.pick(alphabet)).join('')), alphabet };
  },
  'case-folding traps': (r) => ({
    keywords: Array.from({ length: 1 + r.below(8) }, () => Array.from({ length: 1 + r.below(4) }, () => r.pick(TRAPS)).join('')),
    alphabet: [...TRAPS, ...PUNCTUATION],
  }),
};

function randomFilters(r: Random, keywords: string[]): MatchableFilter[] {
  const filters: MatchableFilter[] = [];
  for (let k = 0; k < keywords.length;) {
    const size = 1 + r.below(4);
    filters.push(filter({ words: keywords.slice(k, k + size).map((w) => [w, r.next() < 0.5] as const) }));
    k += size;
  }
  return filters;
}

describe('the compiled matcher against a brute-force reference on adversarial keyword sets', () => {
  for (const [shape, make] of Object.entries(SHAPES)) {
    it(`finds every filter's first match as the reference does: ${shape}`, () => {
      const r = randomGenerator(shape.length * 7919);
      let compared = 0;
      let matched = 0;
      for (let round = 0; round < 150; round++) {
        const { keywords, alphabet } = make(r);
        const filters = randomFilters(r, keywords);
        const compiled = CompiledFilters.compile(filters, NOW);
        for (let t = 0; t < 8; t++) {
          const status = { id: '1', spoiler_text: Array.from({ length: r.below(60) }, () => r.pick(alphabet)).join(''), content: null };
          const text = searchableText(status);
          const results = compiled.match(status, { now: NOW });
          for (const f of filters) {
            const expected = referenceFirstMatch(f, text);
            const actual = results.find((result) => result.filter.id === f.id)?.keyword_matches?.[0] ?? null;
            assert.equal(actual, expected, `keywords ${JSON.stringify(f.keywords)} in ${JSON.stringify(status.spoiler_text)}`);
            compared++;
            if (expected !== null) matched++;
          }
        }
      }
      assert.ok(matched > compared / 10 && matched < compared - compared / 10, `${matched} of ${compared} matched`);
    });
  }
});
