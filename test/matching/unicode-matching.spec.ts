import assert from 'node:assert/strict';
import { filter, keywordMatch, matchOne, status } from './filter-fixtures.ts';

// Ruby's rules for UTF-8 text: `\b` and [[:word:]] see letters, marks and digits of every script, and
// /i folds case with Unicode's full case folding.
describe('matching Unicode text as Ruby does', () => {
  it('folds the case of accented letters and treats them as word characters', () => {
    assert.deepEqual(keywordMatch('café', 'CAFÉ au lait'), ['CAFÉ']);
    assert.equal(keywordMatch('café', 'cafés'), null, 'é is a letter: no boundary inside cafés');
    assert.equal(keywordMatch('caf', 'café'), null, 'no boundary between f and é');
    assert.deepEqual(keywordMatch('Ärger', 'viel ärger!'), ['ärger']);
    assert.deepEqual(keywordMatch('łódź', 'ŁÓDŹ'), ['ŁÓDŹ']);
  });

  it('counts combining marks as word characters', () => {
    // "e" followed by U+0301 COMBINING ACUTE ACCENT: the mark continues the word.
    assert.equal(keywordMatch('cafe', 'cafe\u0301'), null);
    assert.deepEqual(keywordMatch('cafe', 'cafe\u0301', false), ['cafe']);
  });

  it('uses full case folding: ß and ss, ligatures, the Kelvin sign, final sigma', () => {
    assert.deepEqual(keywordMatch('straße', 'STRASSE'), ['STRASSE']);
    assert.deepEqual(keywordMatch('strasse', 'Straße'), ['Straße']);
    assert.deepEqual(keywordMatch('ẞ', 'ss', false), ['ss']);
    assert.deepEqual(keywordMatch('office', 'the oﬃce'), ['oﬃce']);
    assert.deepEqual(keywordMatch('kelvin', '\u212Aelvin'), ['\u212Aelvin']);
    assert.deepEqual(keywordMatch('λόγος', 'ΛΌΓΟΣ'), ['ΛΌΓΟΣ']);
    assert.deepEqual(keywordMatch('ΛΌΓΟΣ', 'λόγος'), ['λόγος']);
  });

  it("never matches part of a character's folding", () => {
    assert.equal(keywordMatch('s', 'ß', false), null);
    assert.equal(keywordMatch('sss', 'ßß', false), null);
    assert.deepEqual(keywordMatch('ssss', 'ßß', false), ['ßß']);
    assert.equal(keywordMatch('fi', 'ﬃ', false), null);
  });

  it('leaves the Turkic dotless ı alone, as Ruby does', () => {
    assert.equal(keywordMatch('ı', 'I', false), null);
    assert.deepEqual(keywordMatch('i̇stanbul', 'İstanbul'), ['İstanbul']);
  });

  it('treats CJK ideographs and kana as word characters', () => {
    assert.deepEqual(keywordMatch('東京', '東京 タワー'), ['東京']);
    assert.deepEqual(keywordMatch('東京', '「東京」'), ['東京']);
    assert.equal(keywordMatch('東京', '東京タワー'), null, 'whole word: タ continues the word');
    assert.deepEqual(keywordMatch('東京', '東京タワー', false), ['東京']);
    assert.deepEqual(keywordMatch('서울', '서울에서', false), ['서울']);
  });

  it('treats emoji as non-word characters, and handles surrogate pairs whole', () => {
    assert.deepEqual(keywordMatch('🍕', 'I love🍕pizza'), ['🍕']);
    assert.deepEqual(keywordMatch('pizza🍕', 'my pizza🍕night'), ['pizza🍕']);
    assert.equal(keywordMatch('pizza🍕', 'mypizza🍕'), null);
    assert.deepEqual(keywordMatch('👩‍💻', 'a 👩‍💻 here'), ['👩‍💻']);
    assert.equal(keywordMatch('🍕', '🍔'), null);
  });

  it('folds astral letters and sees them as word characters', () => {
    // DESERET CAPITAL LETTER LONG I / SMALL LONG I, outside the BMP.
    assert.deepEqual(keywordMatch('\u{10428}', 'x \u{10400} y'), ['\u{10400}']);
    // MATHEMATICAL BOLD CAPITAL A is a letter: no boundary between it and "b".
    assert.equal(keywordMatch('b', '\u{1D400}b'), null);
  });

  it('matches whole words in Arabic and Hebrew text', () => {
    assert.deepEqual(keywordMatch('سلام', 'قال سلام عليكم'), ['سلام']);
    assert.equal(keywordMatch('שלום', 'שלומי'), null);
  });

  it("keeps several filters' Unicode keywords apart in one pass", () => {
    const filters = [filter({ title: 'de', words: ['straße'] }), filter({ title: 'ja', words: ['東京'] }), filter({ title: 'emoji', words: ['🍕'] })];
    const results = matchOne(filters, status('<p>STRASSE in 東京 🍕</p>'));
    assert.deepEqual(
      results.map((r) => [r.filter.title, r.keyword_matches]),
      [
        ['de', ['STRASSE']],
        ['ja', ['東京']],
        ['emoji', ['🍕']],
      ],
    );
  });
});
