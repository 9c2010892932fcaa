import assert from 'node:assert/strict';
import { CompiledFilters } from '../../src/matching/compiled-filters.ts';
import { filter, keywordMatch, matchOne, NOW, status } from './filter-fixtures.ts';

// The examples of Mastodon's specs (custom_filter_keyword_spec.rb, status_relationships_presenter_spec.rb)
// and the rules of CustomFilter.cached_filters_for / apply_cached_filters.
describe('matching as Mastodon does', () => {
  describe('a whole-word keyword (\\b only beside word characters)', () => {
    it('`test` matches `a test.` but not `testing` or `attest`', () => {
      assert.deepEqual(keywordMatch('test', 'a test.'), ['test']);
      assert.equal(keywordMatch('test', 'testing'), null);
      assert.equal(keywordMatch('test', 'attest'), null);
      assert.deepEqual(keywordMatch('test', 'test'), ['test']);
      assert.deepEqual(keywordMatch('test', 'a_test'), null, 'the underscore is a word character');
    });

    it('`test#` has a boundary before it only', () => {
      assert.deepEqual(keywordMatch('test#', 'a test#1'), ['test#']);
      assert.deepEqual(keywordMatch('test#', 'test#tag'), ['test#']);
      assert.equal(keywordMatch('test#', 'atest#'), null);
    });

    it('`#test` has a boundary after it only', () => {
      assert.deepEqual(keywordMatch('#test', 'a#test'), ['#test']);
      assert.deepEqual(keywordMatch('#test', 'see #test!'), ['#test']);
      assert.equal(keywordMatch('#test', '#testing'), null);
    });

    it('a keyword of no word characters matches anywhere', () => {
      assert.deepEqual(keywordMatch('#!', 'a#!b'), ['#!']);
    });
  });

  describe('a keyword that is not whole-word', () => {
    it('matches inside words and URLs', () => {
      assert.deepEqual(keywordMatch('test', 'testing', false), ['test']);
      assert.deepEqual(keywordMatch('test', 'https://example.com/attestation', false), ['test']);
    });
  });

  it('is case-insensitive and reports the match as it appears in the text', () => {
    assert.deepEqual(keywordMatch('magic', 'MAGIC'), ['MAGIC']);
    assert.deepEqual(keywordMatch('MaGiC', 'it is magic'), ['magic']);
  });

  it('takes keywords as literal text, never as a pattern', () => {
    assert.equal(keywordMatch('a.c', 'abc', false), null);
    assert.deepEqual(keywordMatch('a.c', 'xa.cx', false), ['a.c']);
    assert.deepEqual(keywordMatch('(x|y)+', 'is (x|y)+ ok'), ['(x|y)+']);
    assert.deepEqual(keywordMatch('new york', 'I ♥ New York!'), ['New York']);
  });

  it('reports only the first match of a filter, and the first keyword at the same place', () => {
    const results = matchOne([filter({ words: ['zebra', 'apple'] })], status('an apple and a zebra'));
    assert.deepEqual(results[0]!.keyword_matches, ['apple']);
    const tie = matchOne(
      [
        filter({
          words: [
            ['test', false],
            ['testing', false],
          ],
        }),
      ],
      status('testing'),
    );
    assert.deepEqual(tie[0]!.keyword_matches, ['test']);
    const reversed = matchOne(
      [
        filter({
          words: [
            ['testing', false],
            ['test', false],
          ],
        }),
      ],
      status('testing'),
    );
    assert.deepEqual(reversed[0]!.keyword_matches, ['testing']);
    // The first keyword fails its boundary at this place, so the second one wins here.
    const boundary = matchOne([filter({ words: ['test', ['testing', false]] })], status('testing'));
    assert.deepEqual(boundary[0]!.keyword_matches, ['testing']);
  });

  it('matches the spoiler text, the content, poll options and media descriptions', () => {
    const matches = (subject: ReturnType<typeof status>) => matchOne([filter({ words: ['banned'] })], subject)[0]?.keyword_matches ?? null;
    assert.deepEqual(matches(status('', { spoiler_text: 'Banned topic' })), ['Banned']);
    assert.deepEqual(matches(status('<p>this toot is about that banned word</p>')), ['banned']);
    assert.deepEqual(matches(status('', { poll_options: ['yes', 'banned'] })), ['banned']);
    assert.deepEqual(matches(status('', { media_descriptions: [null, 'a banned picture'] })), ['banned']);
    assert.equal(matches(status('<a href="https://banned.example/">link</a>')), null, 'attributes are not text');
  });

  it('does not match across the blank lines between the parts', () => {
    assert.equal(keywordMatch('one two', '', false), null);
    const results = matchOne([filter({ words: [['one two', false]] })], status('one', { spoiler_text: 'x', poll_options: ['two'] }));
    assert.deepEqual(results, []);
  });

  describe('a boost', () => {
    it('is matched through the text of the boosted status it carries', () => {
      const boost = status('<p>this toot is about an irrelevant word</p>', { id: '200', reblog_of_id: '100' });
      const results = matchOne([filter({ title: 'filter1', words: ['banned', 'irrelevant'], filterAction: 'hide' })], boost);
      assert.equal(results.length, 1);
      assert.equal(results[0]!.filter.title, 'filter1');
      assert.deepEqual(results[0]!.keyword_matches, ['irrelevant']);
    });

    it('is matched by a status rule on the boosted status', () => {
      const results = matchOne([filter({ statusIds: ['100'] })], status('hello world', { id: '200', reblog_of_id: '100' }));
      assert.deepEqual(results[0]!.status_matches, ['100']);
      assert.equal(results[0]!.keyword_matches, null);
    });
  });

  describe('status rules', () => {
    it('give the matching status ids, as strings', () => {
      const results = matchOne([filter({ statusIds: ['100', '300'] })], status('hello', { id: '100', reblog_of_id: '300' }));
      assert.deepEqual(results[0]!.status_matches, ['100', '300']);
    });

    it('give [] beside a keyword match when the status is not among them, and null without rules', () => {
      const both = matchOne([filter({ words: ['hello'], statusIds: ['999'] })], status('hello', { id: '100' }));
      assert.deepEqual(both[0]!.keyword_matches, ['hello']);
      assert.deepEqual(both[0]!.status_matches, []);
      const keywordsOnly = matchOne([filter({ words: ['hello'] })], status('hello'));
      assert.equal(keywordsOnly[0]!.status_matches, null);
    });

    it('yield no result when neither keywords nor status rules match', () => {
      assert.deepEqual(matchOne([filter({ words: ['bye'], statusIds: ['999'] })], status('hello', { id: '100' })), []);
      assert.deepEqual(matchOne([filter()], status('hello')), [], 'a filter without keywords or statuses never applies');
    });
  });

  describe('expiry, checked at match time', () => {
    it('leaves out a filter that has expired', () => {
      const expired = filter({ words: ['hello'], expiresAt: new Date(NOW - 1).toISOString() });
      const active = filter({ words: ['hello'], expiresAt: new Date(NOW + 60_000).toISOString() });
      assert.deepEqual(
        matchOne([expired, active], status('hello')).map((r) => r.filter.id),
        [active.id],
      );
    });

    it('stops applying a compiled filter once it expires', () => {
      const soon = filter({ words: ['hello'], expiresAt: new Date(NOW + 1000).toISOString() });
      const compiled = CompiledFilters.compile([soon], NOW);
      assert.equal(compiled.match(status('hello'), { now: NOW + 999 }).length, 1);
      assert.equal(compiled.match(status('hello'), { now: NOW + 1000 }).length, 0);
    });
  });

  it("serialises the FilterResult's filter without keywords and statuses", () => {
    const f = filter({
      title: 'TV',
      context: ['home', 'public'],
      filterAction: 'blur',
      words: ['finale'],
      statusIds: ['5'],
      expiresAt: '2026-07-01T00:00:00.000Z',
    });
    const [result] = matchOne([f], status('The finale!', { id: '5' }));
    assert.deepEqual(JSON.parse(JSON.stringify(result)), {
      filter: { id: f.id, title: 'TV', context: ['home', 'public'], expires_at: '2026-07-01T00:00:00.000Z', filter_action: 'blur' },
      keyword_matches: ['finale'],
      status_matches: ['5'],
    });
  });

  it('applies every active filter, or with a context only the filters for it', () => {
    const home = filter({ context: ['home'], words: ['x'] });
    const publicOnly = filter({ context: ['public', 'thread'], words: ['x'] });
    assert.equal(matchOne([home, publicOnly], status('x')).length, 2);
    assert.deepEqual(
      matchOne([home, publicOnly], status('x'), 'thread').map((r) => r.filter.id),
      [publicOnly.id],
    );
    assert.deepEqual(matchOne([home, publicOnly], status('x'), 'notifications'), []);
  });

  it('lists filters with keywords first, then those with only status rules', () => {
    const statusesOnly = filter({ statusIds: ['100'] });
    const withKeywords = filter({ words: ['hello'] });
    assert.deepEqual(
      matchOne([statusesOnly, withKeywords], status('hello', { id: '100' })).map((r) => r.filter.id),
      [withKeywords.id, statusesOnly.id],
    );
  });

  it('finds nothing for an account without filters', () => {
    assert.deepEqual(matchOne([], status('anything at all')), []);
  });
});
