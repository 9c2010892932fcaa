import assert from 'node:assert/strict';
import { CompiledFilters } from '../../src/matching/compiled-filters.ts';
import { filter, NOW } from './filter-fixtures.ts';

/**
 * The automaton against the plainest reading of Mastodon's rules: one case-insensitive regex per filter,
 * `Regexp.union` of its keywords, with `\b` as look-arounds on Ruby's word characters. On characters
 * whose case folding is a single code point (no ß, ligatures or İ) JavaScript's /iu folds as Ruby does,
 * so the two must agree on every first match.
 */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Letters in several scripts and cases, digits, marks, punctuation, spaces and emoji.
const ALPHABET = [...'abcABCxyzXYZ019_ éÉèñÑøØ東京タワ한글ДдЖжΣσςΩω\u0301\u212A.,#@!?-()\'"\n\t🍕😀'];

const word = /^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}]$/u;
// Ruby's word characters among the ones texts are made of, spelled out: a class of Unicode properties
// under /iu takes V8 milliseconds to compile, and every round compiles new regexes.
const WORD = `[${ALPHABET.filter((c) => word.test(c)).join('')}]`;

function referenceRegex(keywords: readonly { keyword: string; wholeWord: boolean }[]): RegExp {
  const alternatives = keywords.map(({ keyword, wholeWord }) => {
    const chars = [...keyword];
    const before = wholeWord && word.test(chars[0]!) ? `(?<!${WORD})` : '';
    const after = wholeWord && word.test(chars[chars.length - 1]!) ? `(?!${WORD})` : '';
    return `${before}${escape(keyword)}${after}`;
  });
  return new RegExp(alternatives.join('|'), 'iu');
}

function randomGenerator(seed: number) {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const text = (min: number, max: number) => Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => pick(ALPHABET)).join('');
  return { next, pick, text };
}

describe('the compiled matcher against a regex per filter', () => {
  it('finds the same first match for random keywords and texts', () => {
    const random = randomGenerator(20260601);
    let compared = 0;
    let matched = 0;
    for (let round = 0; round < 400; round++) {
      const filters = Array.from({ length: 1 + Math.floor(random.next() * 4) }, () =>
        filter({ words: Array.from({ length: 1 + Math.floor(random.next() * 4) }, () => [random.text(1, 3), random.next() < 0.6] as const) }),
      );
      const compiled = CompiledFilters.compile(filters, NOW);
      const references = new Map(filters.map((f) => [f.id, referenceRegex(f.keywords)]));
      for (let t = 0; t < 10; t++) {
        const text = random.text(0, 60);
        const results = compiled.match({ id: '1', content: null, spoiler_text: text }, { now: NOW });
        for (const f of filters) {
          const expected = references.get(f.id)!.exec(`${text}\n\n\n\n`)?.[0] ?? null;
          const actual = results.find((r) => r.filter.id === f.id)?.keyword_matches?.[0] ?? null;
          assert.equal(actual, expected, `keywords ${JSON.stringify(f.keywords)} in ${JSON.stringify(text)}`);
          compared++;
          if (expected !== null) matched++;
        }
      }
    }
    // Enough of both outcomes for the comparison to mean something.
    assert.ok(matched > 500 && compared - matched > 500, `${matched} of ${compared} matched`);
  });
});
