import assert from 'node:assert/strict';
import { filterDecider } from '../../src/commands/filter/decider.ts';
import { codePoints, FILTER_LIMITS, type AccountUsage } from '../../src/commands/filter/filter-limits.ts';
import type { FilterCommand, KeywordDraft } from '../../src/commands/filter/commands.ts';
import { ValidationError } from '../../src/commands/errors.ts';
import type { FilterEvent, Keyword } from '../../src/events/filter-events.ts';
import { specFor } from '../support/given.ts';
import { eventMetadata } from '../support/event-metadata.ts';

const given = specFor(filterDecider);
const now = '2026-11-26T06:00:00.000Z';
const filterId = '1001';
const owner = '7';
const settings = { title: 'limits', context: ['home'], action: 'warn', expiresAt: null };
const none: AccountUsage = { filters: 0, keywordCharacters: 0 };

const keywordList = (count: number, length = 1, from = 0): Keyword[] =>
  Array.from({ length: count }, (_, i) => ({ id: String(5000 + from + i), keyword: 'k'.repeat(length), wholeWord: true }));

const created: FilterEvent = { type: 'FilterCreated', data: { filterId, accountId: owner, ...settings, action: 'warn', context: ['home'], createdAt: now } };
const holding = (keywords: readonly Keyword[]): FilterEvent => ({
  type: 'KeywordsUpdated',
  data: { filterId, removed: [], changed: [], added: keywords, replacesAll: false, updatedAt: now },
});
const create = (keywords: readonly KeywordDraft[], accountUsage: AccountUsage = none): FilterCommand => ({
  type: 'CreateFilter',
  data: { filterId, accountId: owner, now, settings, keywords, accountUsage },
});
const add = (keywords: readonly KeywordDraft[], accountUsage: AccountUsage = none): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId: owner, now, addKeywords: keywords, accountUsage, keywordLabel: 'Keyword' },
});
const statusEvents = (count: number): FilterEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'StatusFiltered',
    data: { filterId, filterStatusId: String(9000 + i), statusId: String(100 + i), filteredAt: now },
  }));

describe('Filter limits (decider)', () => {
  const { keywordsPerFilter, keywordCharactersPerFilter, keywordCharactersPerAccount, filtersPerAccount, statusesPerFilter } = FILTER_LIMITS;

  it('counts characters as code points', () => {
    assert.equal(codePoints('abc'), 3);
    assert.equal(codePoints('🙂🙂'), 2);
    assert.equal(codePoints('\ud83d'), 1);
    assert.equal(codePoints(''), 0);
  });

  it(`creates a filter with ${keywordsPerFilter} keywords and refuses one more`, () => {
    given([])
      .when(create(keywordList(keywordsPerFilter)))
      .then([created, holding(keywordList(keywordsPerFilter))]);
    given([])
      .when(create(keywordList(keywordsPerFilter + 1)))
      .thenThrows(ValidationError, `Validation failed: Keywords are too many (maximum is ${keywordsPerFilter} per filter)`);
  });

  it('refuses a keyword added to a full filter, but lets it shrink and change', () => {
    const full = [created, holding(keywordList(keywordsPerFilter))];
    given(full)
      .when(add(keywordList(1, 1, keywordsPerFilter)))
      .thenThrows(ValidationError, `Validation failed: Keywords are too many (maximum is ${keywordsPerFilter} per filter)`);
    given(full)
      .when({ type: 'UpdateFilter', data: { filterId, accountId: owner, now, removeKeywords: ['5000'], addKeywords: keywordList(1, 1, keywordsPerFilter) } })
      .then([
        {
          type: 'KeywordsUpdated',
          data: { filterId, removed: ['5000'], changed: [], added: keywordList(1, 1, keywordsPerFilter), replacesAll: false, updatedAt: now },
        },
      ]);
  });

  it(`refuses more than ${keywordCharactersPerFilter} keyword characters in one filter`, () => {
    const fits = keywordList(keywordCharactersPerFilter / 500, 500);
    given([])
      .when(create(fits))
      .then([created, holding(fits)]);
    given([created, holding(fits)])
      .when(add([{ id: '1', keyword: '🙂', wholeWord: false }]))
      .thenThrows(ValidationError, `Validation failed: Keywords are too long together (maximum is ${keywordCharactersPerFilter} characters per filter)`);
    given([created, holding(fits)])
      .when({ type: 'UpdateFilter', data: { filterId, accountId: owner, now, changeKeywords: [{ id: '5000', keyword: 'k'.repeat(501) }] } })
      .thenThrows(ValidationError, /maximum is 20000 characters per filter/);
  });

  it(`refuses keywords that would take the account past ${keywordCharactersPerAccount} characters`, () => {
    const usage = { filters: 10, keywordCharacters: keywordCharactersPerAccount - 10 };
    given([])
      .when(create(keywordList(2, 5), usage))
      .then([created, holding(keywordList(2, 5))]);
    given([])
      .when(create(keywordList(1, 11), usage))
      .thenThrows(ValidationError, `Validation failed: Keywords are too long together (maximum is ${keywordCharactersPerAccount} characters per account)`);
    given([created, holding(keywordList(1, 10))])
      .when(add(keywordList(1, 1, 1), usage))
      .thenThrows(ValidationError, /maximum is 100000 characters per account/);
  });

  it('lets an account over its character limit remove keywords', () =>
    given([created, holding(keywordList(2, 10))])
      .when({
        type: 'UpdateFilter',
        data: { filterId, accountId: owner, now, removeKeywords: ['5000'], accountUsage: { filters: 1, keywordCharacters: keywordCharactersPerAccount * 2 } },
      })
      .then([{ type: 'KeywordsUpdated', data: { filterId, removed: ['5000'], changed: [], added: [], replacesAll: false, updatedAt: now } }]));

  it(`refuses a filter beyond ${filtersPerAccount} per account`, () => {
    given([])
      .when(create([], { filters: filtersPerAccount - 1, keywordCharacters: 0 }))
      .then([created]);
    given([])
      .when(create([], { filters: filtersPerAccount, keywordCharacters: 0 }))
      .thenThrows(ValidationError, `Validation failed: Filters are too many (maximum is ${filtersPerAccount} per account)`);
  });

  it('gives every message at once, after the Mastodon ones', () =>
    given([])
      .when({
        type: 'CreateFilter',
        data: {
          filterId,
          accountId: owner,
          now,
          settings: { ...settings, title: '' },
          keywords: keywordList(keywordsPerFilter + 1),
          accountUsage: { filters: filtersPerAccount, keywordCharacters: 0 },
        },
      })
      .thenThrows(
        ValidationError,
        `Validation failed: Title can't be blank, Filters are too many (maximum is ${filtersPerAccount} per account), Keywords are too many (maximum is ${keywordsPerFilter} per filter)`,
      ));

  it(`filters ${statusesPerFilter} statuses and refuses one more`, () => {
    const filterStatus = (n: number): FilterCommand => ({
      type: 'FilterStatus',
      data: { filterId, accountId: owner, now, filterStatusId: String(9000 + n), statusId: String(100 + n) },
    });
    const almost = [created, ...statusEvents(statusesPerFilter - 1)];
    given(almost)
      .when(filterStatus(statusesPerFilter - 1))
      .then(statusEvents(statusesPerFilter).slice(-1));
    given([...almost, ...statusEvents(statusesPerFilter).slice(-1)])
      .when(filterStatus(statusesPerFilter))
      .thenThrows(ValidationError, `Validation failed: Statuses are too many (maximum is ${statusesPerFilter} per filter)`);
  });

  it('keeps the largest commit the limits allow far below EventStoreDB’s 1 MiB MaxAppendSize', () => {
    // Characters JSON writes as six bytes each (\u0001), in as many keywords as a filter may hold.
    const perKeyword = keywordCharactersPerFilter / keywordsPerFilter;
    const worst = Array.from({ length: keywordsPerFilter }, (_, i) => ({
      id: String(2n ** 63n - 1n - BigInt(i)),
      keyword: '\u0001'.repeat(perKeyword),
      wholeWord: false,
    }));
    const title = '\u0001'.repeat(256);
    const events = filterDecider.decide(
      { type: 'CreateFilter', data: { filterId, accountId: owner, now, settings: { ...settings, title }, keywords: worst, accountUsage: none } },
      filterDecider.initialState(),
    );
    const metadata = eventMetadata({ accountId: owner, requestId: 'r'.repeat(200), tokenId: '9'.repeat(19), commitSize: 2, schemaVersion: 2 });
    const bytes = events.reduce(
      (sum, e) => sum + Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(metadata)) + 2 * e.type.length,
      0,
    );
    assert.ok(bytes < (1024 * 1024) / 4, `${bytes} bytes`);
    // Changing every keyword at once carries each once, so it is no larger.
    const [, holding] = events;
    const change = filterDecider.decide(
      {
        type: 'UpdateFilter',
        data: { filterId, accountId: owner, now, changeKeywords: worst.map((k) => ({ id: k.id, wholeWord: true })), accountUsage: none },
      },
      [events[0]!, holding!].reduce(filterDecider.evolve, filterDecider.initialState()),
    );
    assert.ok(Buffer.byteLength(JSON.stringify(change[0]!.data)) < (1024 * 1024) / 4);
  });
});
