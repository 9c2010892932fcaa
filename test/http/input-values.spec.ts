import assert from 'node:assert/strict';
import { keywordChange, newFilterSettings, newKeyword, partialSettings } from '../../src/http/filter-input.ts';
import { HttpError } from '../../src/http/http-errors.ts';
import { checked, keywordInput, statusInput, v1FilterInput, v2FilterInput } from '../../src/http/input-schemas.ts';
import { attributeList, contextList, expiresAtFrom, isAllBlank, railsBoolean, text } from '../../src/http/input-values.ts';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const invalid = (message: string) => (error: unknown) => error instanceof HttpError && error.status === 422 && error.message === message;

describe('HTTP input values', () => {
  // activemodel/lib/active_model/type/boolean.rb: cast_value is nil for "", else !FALSE_VALUES.include?(value).
  it('casts booleans exactly as ActiveModel::Type::Boolean: "" is not given, its FALSE_VALUES are false, the rest true', () => {
    for (const blank of [undefined, null, '']) assert.equal(railsBoolean(blank), undefined);
    for (const no of ['0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF', 0, false]) assert.equal(railsBoolean(no), false, String(no));
    for (const yes of ['1', 't', 'true', 'on', 'yes', 'maybe', 'anything', ' ', 'False', 'Off', ' false ', 'no', 1, -1, 0.5, true]) {
      assert.equal(railsBoolean(yes), true, JSON.stringify(yes));
    }
  });

  it('reads text from strings and numbers, and nothing from null or undefined', () => {
    assert.equal(text('a'), 'a');
    assert.equal(text(12), '12');
    assert.equal(text(null), undefined);
    assert.equal(text(undefined), undefined);
  });

  it('reads a context list; anything else sent counts as blank, only an absent one as no change', () => {
    assert.deepEqual(contextList(['home', 'public']), ['home', 'public']);
    assert.equal(contextList(undefined), undefined);
    for (const notAList of ['home', null, 1, { a: 'home' }]) assert.deepEqual(contextList(notAList), []);
  });

  it('reads nested attributes as a list or as a hash ordered by index', () => {
    assert.deepEqual(attributeList(undefined), []);
    assert.deepEqual(attributeList([{ keyword: 'a' }]), [{ keyword: 'a' }]);
    assert.deepEqual(
      attributeList({ '10': { keyword: 'c' }, '2': { keyword: 'b' }, x: { keyword: 'e' }, '0': { keyword: 'a' }, w: { keyword: 'd' } }).map((r) => r.keyword),
      ['a', 'b', 'c', 'd', 'e'],
    );
  });

  it('ignores a keyword row whose values are all blank, _destroy aside', () => {
    assert.equal(isAllBlank({}), true);
    assert.equal(isAllBlank({ keyword: ' ', whole_word: false, id: null, _destroy: '1' }), true);
    assert.equal(isAllBlank({ keyword: 'a' }), false);
    assert.equal(isAllBlank({ keyword: '', whole_word: 'false' }), false, 'a form "false" is not blank');
    assert.equal(isAllBlank({ id: 0 }), false);
    assert.equal(isAllBlank({ whole_word: true }), false);
  });

  it('reads expires_in: absent is no change, blank or null never expires, numbers and numeric strings are seconds', () => {
    assert.equal(expiresAtFrom(undefined, NOW), undefined);
    assert.equal(expiresAtFrom(null, NOW), null);
    assert.equal(expiresAtFrom('  ', NOW), null);
    assert.equal(expiresAtFrom(60, NOW), '2026-11-22T10:01:00.000Z');
    assert.equal(expiresAtFrom(' 60 ', NOW), '2026-11-22T10:01:00.000Z');
    assert.equal(expiresAtFrom('90.9', NOW), '2026-11-22T10:01:30.000Z');
    assert.equal(expiresAtFrom(-60, NOW), '2026-11-22T09:59:00.000Z');
    const limit = 8.64e15;
    assert.equal(expiresAtFrom((limit - NOW) / 1000, NOW), new Date(limit).toISOString());
    for (const bad of ['soon', 'NaN', '1e400', (limit - NOW) / 1000 + 1, Infinity]) {
      assert.throws(() => expiresAtFrom(bad, NOW), invalid('Validation failed: Expires in is not a number'), String(bad));
    }
  });
});

describe('HTTP filter input', () => {
  it('keeps only the settings that were sent', () => {
    assert.deepEqual(partialSettings({}, NOW), {});
    assert.deepEqual(partialSettings({ title: 5, context: ['home'], action: 'hide', expiresIn: 60 }, NOW), {
      title: '5',
      context: ['home'],
      action: 'hide',
      expiresAt: '2026-11-22T10:01:00.000Z',
    });
    assert.deepEqual(partialSettings({ expiresIn: null, context: 'home' }, NOW), { expiresAt: null, context: [] });
  });

  it("fills a new filter's missing settings with Mastodon's defaults", () => {
    assert.deepEqual(newFilterSettings({}), { title: '', context: [], action: 'warn', expiresAt: null });
    const given = { title: 't', context: ['home'], action: 'blur', expiresAt: '2026-11-22T10:01:00.000Z' };
    assert.deepEqual(newFilterSettings(given), given);
  });

  it('names only what was sent in a keyword change, and makes new keywords whole-word by default', () => {
    assert.deepEqual(keywordChange('1', undefined, undefined), { id: '1' });
    assert.deepEqual(keywordChange('1', 7, '0'), { id: '1', keyword: '7', wholeWord: false });
    assert.deepEqual(keywordChange('1', null, 'true'), { id: '1', keyword: '', wholeWord: true });
    const added = newKeyword('k', undefined);
    assert.match(added.id, /^[0-9]+$/);
    assert.deepEqual({ ...added, id: 'x' }, { id: 'x', keyword: 'k', wholeWord: true });
    assert.deepEqual({ ...newKeyword(null, 'off'), id: 'x' }, { id: 'x', keyword: '', wholeWord: false });
    assert.notEqual(newKeyword('a', undefined).id, newKeyword('a', undefined).id);
  });
});

describe('HTTP input schemas', () => {
  it('accepts what Mastodon clients send, as JSON types or form strings', () => {
    const v2 = {
      title: 1,
      context: ['home'],
      filter_action: 'warn',
      expires_in: null,
      keywords_attributes: [{ id: null, keyword: 2, whole_word: 'true', _destroy: false }],
      extra: { ignored: true },
    };
    assert.equal(checked(v2FilterInput, v2), v2);
    assert.doesNotThrow(() => checked(v2FilterInput, { keywords_attributes: { '0': { keyword: 'a', whole_word: null } }, expires_in: '60', context: 'home' }));
    assert.doesNotThrow(() => checked(v1FilterInput, { phrase: 'p', context: ['home'], irreversible: true, whole_word: 0, expires_in: 1 }));
    assert.doesNotThrow(() => checked(keywordInput, { keyword: 'k', whole_word: 1 }));
    assert.doesNotThrow(() => checked(statusInput, { status_id: 1 }));
  });

  it('refuses wrongly typed parameters with a 422 naming each as the client wrote it', () => {
    assert.throws(
      () =>
        checked(v2FilterInput, {
          title: {},
          context: ['home', 1],
          filter_action: 1,
          expires_in: [],
          keywords_attributes: [{ keyword: ['x'], id: {}, whole_word: [], _destroy: {} }],
        }),
      invalid(
        'Validation failed: title is invalid, context[1] is invalid, filter_action is invalid, expires_in is invalid, keywords_attributes[0][id] is invalid, keywords_attributes[0][keyword] is invalid, keywords_attributes[0][whole_word] is invalid, keywords_attributes[0][_destroy] is invalid',
      ),
    );
    assert.throws(
      () => checked(v2FilterInput, { keywords_attributes: { '3': { keyword: true } } }),
      invalid('Validation failed: keywords_attributes[3][keyword] is invalid'),
    );
    assert.throws(() => checked(v2FilterInput, { keywords_attributes: 'x' }), invalid('Validation failed: keywords_attributes is invalid'));
    assert.throws(() => checked(v2FilterInput, { keywords_attributes: ['x'] }), invalid('Validation failed: keywords_attributes[0] is invalid'));
    assert.throws(
      () => checked(v1FilterInput, { phrase: [], irreversible: {}, whole_word: [], expires_in: true, context: [null] }),
      invalid('Validation failed: phrase is invalid, context[0] is invalid, irreversible is invalid, whole_word is invalid, expires_in is invalid'),
    );
    assert.throws(() => checked(keywordInput, { keyword: null, whole_word: {} }), invalid('Validation failed: keyword is invalid, whole_word is invalid'));
    assert.throws(() => checked(statusInput, { status_id: true }), invalid('Validation failed: status_id is invalid'));
    assert.throws(() => checked(statusInput, 'x'), invalid('Validation failed: body is invalid'));
  });
});
