import assert from 'node:assert/strict';
import { CompiledFilters, type MatchableFilter } from '../../src/matching/compiled-filters.ts';
import { KeywordScan } from '../../src/matching/keyword-scan.ts';
import { NOW } from './filter-fixtures.ts';
import { charactersScanned } from './scan-work.ts';

let ids = 0;
const filterOf = (words: readonly (readonly [string, boolean])[]): MatchableFilter => ({
  id: String(++ids),
  title: `filter ${ids}`,
  context: ['home'],
  filterAction: 'warn',
  expiresAt: null,
  keywords: words.map(([keyword, wholeWord]) => ({ keyword, wholeWord })),
  statuses: [],
});
const chain = (unit: string, count: number, wholeWord: boolean) => Array.from({ length: count }, (_, k) => [unit.repeat(k + 1), wholeWord] as const);
/** A filter no text here contains: the scan cannot end early because every filter has matched. */
const NEVER = filterOf([['zzzz', false]]);

/**
 * Units of work of the scans while matching: a character, an output node looked at (which either becomes
 * its filter's match or is skipped from then on), or a state's nodes refused at once.
 */
function scanWork(compiled: CompiledFilters, text: string): number {
  const methods = KeywordScan.prototype as unknown as { advance: (this: { work: number }, budget: number) => boolean };
  const advance = methods.advance;
  assert.equal(typeof advance, 'function', 'the automaton has no resumable scan: this count does not apply to it');
  let work = 0;
  methods.advance = function (this: { work: number }, budget: number) {
    const done = advance.call(this, budget);
    work += this.work;
    return done;
  };
  try {
    compiled.match({ id: '1', spoiler_text: text }, { now: NOW });
  } finally {
    methods.advance = advance;
  }
  return work;
}

const SHAPES: Record<string, { filters: MatchableFilter[]; text: string }> = {
  'a suffix chain a ... a x 512 in one filter, against 8,000 a': { filters: [filterOf(chain('a', 512, false)), NEVER], text: 'a'.repeat(8000) },
  'the same chain, whole words, against runs of 513 a': { filters: [filterOf(chain('a', 512, true)), NEVER], text: `${'a'.repeat(513)} `.repeat(16) },
  'a chain of .a (boundary after every unit) against .a x 4,000': { filters: [filterOf(chain('.a', 256, true)), NEVER], text: '.a'.repeat(4000) },
  'the chain spread over 512 filters': { filters: [...chain('a', 512, false).map((k) => filterOf([k])), NEVER], text: 'a'.repeat(8000) },
  'one keyword in 500 filters': { filters: [...Array.from({ length: 500 }, () => filterOf([['ab', true]])), NEVER], text: 'ab '.repeat(3000) },
  'one keyword in 500 filters, starting inside ß': { filters: [...Array.from({ length: 500 }, () => filterOf([['s', false]])), NEVER], text: 'ß'.repeat(4000) },
  'shared prefixes': {
    filters: [filterOf(Array.from({ length: 300 }, (_, k) => [`abc${'d'.repeat(k)}e`, false] as const)), NEVER],
    text: `abc${'d'.repeat(400)}`.repeat(20),
  },
};

describe('matching work is linear in the text and the keywords', () => {
  for (const [shape, { filters, text }] of Object.entries(SHAPES)) {
    it(`does a bounded amount of work: ${shape}`, () => {
      const compiled = CompiledFilters.compile(filters, NOW);
      const keywords = filters.reduce((sum, f) => sum + f.keywords.length, 0);
      const work = scanWork(compiled, text);
      assert.ok(work <= 3 * (text.length + keywords), `${work} units of work for ${text.length} characters and ${keywords} keywords`);
    });
  }

  it('reads each character of the text a bounded number of times, however many keywords end there (suffix chains)', () => {
    const compiled = CompiledFilters.compile([filterOf(chain('a', 64, false)), NEVER], NOW);
    const text = 'a'.repeat(4000);
    const scanned = charactersScanned(() => compiled.match({ id: '1', spoiler_text: text }, { now: NOW }));
    assert.ok(scanned <= 4 * text.length, `${scanned} character reads for ${text.length} characters`);
  });
});

describe('a matcher takes memory linear in its keywords', () => {
  it('holds a bounded number of 4-byte units per keyword character, whatever the alphabet (many distinct characters)', () => {
    let seed = 17;
    const cjk = () => String.fromCodePoint(0x4e00 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 2000));
    const keywords = Array.from({ length: 20 }, () => [Array.from({ length: 200 }, cjk).join(''), false] as const);
    const compiled = CompiledFilters.compile([filterOf(keywords)], NOW);
    // 2,000 distinct characters: the CJK pages of the lookup (a fixed 1 KiB each) come on top.
    assert.ok(compiled.size <= 40 * 4000 + 40 * 256, `${compiled.size} units for 4,000 keyword characters`);
  });

  it('holds at most 32 units per keyword character, from 2,000 to 20,000 keywords', () => {
    for (const count of [2000, 20000]) {
      const words = Array.from({ length: count }, (_, k) => [`w${k.toString(36)}x${'y'.repeat(k % 50)}`, true] as const);
      const characters = words.reduce((sum, [word]) => sum + word.length, 0);
      const size = CompiledFilters.compile([filterOf(words)], NOW).size;
      assert.ok(size <= 32 * characters, `${size} units for ${count} keywords of ${characters} characters`);
    }
  });
});

describe('a slow scan is cut into steps', () => {
  it('yields many times within one status whose scan is slow (occurrences starting inside ß, refused at every character)', () => {
    const compiled = CompiledFilters.compile([filterOf(Array.from({ length: 256 }, (_, k) => ['s'.repeat(2 * k + 1), false] as const))], NOW);
    const steps = compiled.matchSteps({ id: '1', spoiler_text: 'ß'.repeat(20_000) }, { now: NOW });
    let yields = 0;
    while (!steps.next().done) yields++;
    // About 20,000 characters x 256 refused occurrences, in steps of 16,384 units.
    assert.ok(yields >= 100, `${yields} yields`);
  });
});

describe('scans of one matcher at once', () => {
  it('keep their own state when two statuses are scanned step by step, interleaved', () => {
    const chain = Array.from({ length: 256 }, (_, k) => ['s'.repeat(2 * k + 1), false] as const);
    const compiled = CompiledFilters.compile([filterOf(chain), filterOf([['apple', true]])], NOW);
    const first = compiled.matchSteps({ id: '1', spoiler_text: `${'ß'.repeat(5000)} s apple` }, { now: NOW });
    const second = compiled.matchSteps({ id: '2', spoiler_text: `${'ß'.repeat(5000)} pear` }, { now: NOW });
    let one = first.next();
    let two = second.next();
    while (!one.done || !two.done) {
      if (!one.done) one = first.next();
      if (!two.done) two = second.next();
    }
    assert.deepEqual(
      one.value.map((r) => r.keyword_matches),
      [['s'], ['apple']],
    );
    assert.deepEqual(two.value, []);
  });
});
