import { filterDecider } from '../../src/commands/filter/decider.ts';
import type { FilterCommand, ImportFilter, SettingsInput } from '../../src/commands/filter/commands.ts';
import { RuleViolation, ValidationError } from '../../src/commands/errors.ts';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { specFor } from '../support/given.ts';

const given = specFor(filterDecider);
const filterId = '12';
const owner = '109000000000000001';
const createdAt = '2024-03-01T08:00:00.123Z';
const keywordsUpdatedAt = '2024-03-02T09:00:00.456Z';
const settings: SettingsInput = { title: 'Spoilers', context: ['home', 'public'], action: 'hide', expiresAt: '2030-01-01T00:00:00.000Z' };

const importing = (overrides: Partial<ImportFilter['data']> = {}): FilterCommand => ({
  type: 'ImportFilter',
  data: {
    filterId,
    accountId: owner,
    now: '2026-12-01T22:00:00.000Z',
    settings,
    keywords: [
      { id: '40', keyword: 'finale', wholeWord: true },
      { id: '41', keyword: 'finale', wholeWord: false },
    ],
    statuses: [{ id: '7', statusId: '110000000000000009', filteredAt: '2024-03-03T10:00:00.000Z' }],
    createdAt,
    keywordsUpdatedAt,
    ...overrides,
  },
});

const created: FilterEvent = { type: 'FilterCreated', data: { filterId, accountId: owner, ...settings, createdAt } as never };

describe('Filter decider: ImportFilter (mastodon import)', () => {
  it('given no stream, when a Mastodon filter is imported, then it is created with its ids, keywords (duplicates too), statuses and times', () =>
    given([])
      .when(importing())
      .then([
        created,
        {
          type: 'KeywordsUpdated',
          data: {
            filterId,
            removed: [],
            changed: [],
            added: [
              { id: '40', keyword: 'finale', wholeWord: true },
              { id: '41', keyword: 'finale', wholeWord: false },
            ],
            replacesAll: false,
            updatedAt: keywordsUpdatedAt,
          },
        },
        { type: 'StatusFiltered', data: { filterId, filterStatusId: '7', statusId: '110000000000000009', filteredAt: '2024-03-03T10:00:00.000Z' } },
      ]));

  it('given no stream, when a filter without keywords or statuses is imported, then one FilterCreated', () =>
    given([])
      .when(importing({ keywords: [], statuses: [] }))
      .then([created]));

  it('given the filter imported before, when it is imported again, then nothing is decided', () => given([created]).when(importing()).thenNothing());

  it('given the filter imported and deleted since, when it is imported again, then it stays deleted', () =>
    given([created, { type: 'FilterDeleted', data: { filterId, deletedAt: '2026-12-01T22:05:00.000Z' } }])
      .when(importing())
      .thenNothing());

  it('given another account’s filter under that id, when imported, then refused', () =>
    given([{ type: 'FilterCreated', data: { ...(created.data as object), accountId: '5' } as never }])
      .when(importing())
      .thenThrows(RuleViolation, `filter ${filterId} is in the log already, for another account`));

  it('refuses what a create refuses, with Mastodon’s messages: an unknown action, a bad context, a long title, a blank keyword', () =>
    given([])
      .when(
        importing({
          settings: { title: 'x'.repeat(257), context: ['home', 'timeline'], action: 'action 7', expiresAt: null },
          keywords: [{ id: '40', keyword: ' ', wholeWord: true }],
        }),
      )
      .thenThrows(
        ValidationError,
        "Validation failed: Action is not included in the list, Title is too long (maximum is 256 characters), Context None or invalid context supplied, Keywords keyword can't be blank",
      ));

  it('refuses a filter over the per-filter limits: 1,001 keywords, 1,001 statuses', () => {
    const keywords = Array.from({ length: 1001 }, (_, i) => ({ id: String(100 + i), keyword: `k${i}`, wholeWord: true }));
    const statuses = Array.from({ length: 1001 }, (_, i) => ({ id: String(i + 1), statusId: String(5000 + i), filteredAt: createdAt }));
    given([])
      .when(importing({ keywords, statuses }))
      .thenThrows(ValidationError, 'Validation failed: Statuses are too many (maximum is 1000 per filter), Keywords are too many (maximum is 1000 per filter)');
  });

  it('refuses a status named twice and one that is no status id', () =>
    given([])
      .when(
        importing({
          statuses: [
            { id: '1', statusId: '9', filteredAt: createdAt },
            { id: '2', statusId: '9', filteredAt: createdAt },
            { id: '3', statusId: '__proto__', filteredAt: createdAt },
          ],
        }),
      )
      .thenThrows(ValidationError, 'Validation failed: Status must exist, Status has already been taken'));

  it('refuses a filter the account has no room for (1,000 filters, 100,000 keyword characters)', () =>
    given([])
      .when(importing({ accountUsage: { filters: 1000, keywordCharacters: 99_995 } }))
      .thenThrows(
        ValidationError,
        'Validation failed: Filters are too many (maximum is 1000 per account), Keywords are too long together (maximum is 100000 characters per account)',
      ));
});
