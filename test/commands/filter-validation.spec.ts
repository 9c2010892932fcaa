import { NotFoundError, RuleViolation, ValidationError } from '../../src/commands/errors.ts';
import type { FilterCommand, SettingsInput } from '../../src/commands/filter/commands.ts';
import { filterDecider } from '../../src/commands/filter/decider.ts';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { specFor } from '../support/given.ts';

// Mastodon's rules at their edges, with the messages a client is shown.
const given = specFor(filterDecider);
const now = '2026-11-22T10:00:00.000Z';
const filterId = '1001';
const owner = '7';
const settings: SettingsInput = { title: 'magic', context: ['home'], action: 'warn', expiresAt: null };

const created: FilterEvent = { type: 'FilterCreated', data: { filterId, accountId: owner, ...settings, createdAt: now } as never };
const twoKeywords: FilterEvent = {
  type: 'KeywordsUpdated',
  data: {
    filterId,
    removed: [],
    changed: [],
    added: [
      { id: '2001', keyword: 'magic', wholeWord: true },
      { id: '2002', keyword: 'tv', wholeWord: true },
    ],
    replacesAll: false,
    updatedAt: now,
  },
};
const create = (overrides: Partial<SettingsInput>, keywords: { id: string; keyword: string; wholeWord: boolean }[] = []): FilterCommand => ({
  type: 'CreateFilter',
  data: { filterId, accountId: owner, now, settings: { ...settings, ...overrides }, keywords },
});
const update = (data: Partial<Extract<FilterCommand, { type: 'UpdateFilter' }>['data']>): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId: owner, now, ...data },
});
const filterStatus = (filterStatusId: string, statusId: string): FilterCommand => ({
  type: 'FilterStatus',
  data: { filterId, accountId: owner, now, filterStatusId, statusId },
});
const filtered = (filterStatusId: string, statusId: string): FilterEvent => ({
  type: 'StatusFiltered',
  data: { filterId, filterStatusId, statusId, filteredAt: now },
});
const unfilter = (filterStatusId: string): FilterCommand => ({ type: 'UnfilterStatus', data: { filterId, accountId: owner, now, filterStatusId } });
const unfiltered = (filterStatusId: string, statusId: string): FilterEvent => ({
  type: 'StatusUnfiltered',
  data: { filterId, filterStatusId, statusId, unfilteredAt: now },
});

describe('Filter rules at their edges', () => {
  it('accepts every one of the five contexts, and refuses a list holding one unknown context', () => {
    const all = ['home', 'notifications', 'public', 'thread', 'account'];
    given([])
      .when(create({ context: all }))
      .then([{ type: 'FilterCreated', data: { filterId, accountId: owner, ...settings, context: all, createdAt: now } } as FilterEvent]);
    given([])
      .when(create({ context: ['home', 'shaolin'] }))
      .thenThrows(ValidationError, 'Validation failed: Context None or invalid context supplied');
  });

  it('accepts a keyword of exactly 512 characters', () => {
    const keyword = 'k'.repeat(512);
    given([])
      .when(create({}, [{ id: '1', keyword, wholeWord: true }]))
      .then([
        { type: 'FilterCreated', data: { filterId, accountId: owner, ...settings, createdAt: now } } as FilterEvent,
        {
          type: 'KeywordsUpdated',
          data: { filterId, removed: [], changed: [], added: [{ id: '1', keyword, wholeWord: true }], replacesAll: false, updatedAt: now },
        },
      ]);
  });

  it('names the filter that already exists', () => given([created]).when(create({})).thenThrows(RuleViolation, `filter ${filterId} already exists`));

  it('strips and drops blank context entries on update too', () =>
    given([created])
      .when(update({ settings: { context: [' public', ''] } }))
      .then([{ type: 'FilterUpdated', data: { filterId, ...settings, context: ['public'], updatedAt: now } } as FilterEvent]));

  it('labels keyword errors of an update "Keywords keyword" unless told otherwise', () =>
    given([created])
      .when(update({ addKeywords: [{ id: '3', keyword: ' ', wholeWord: true }] }))
      .thenThrows(ValidationError, "Validation failed: Keywords keyword can't be blank"));

  it("refuses v1 setting changes on a shared filter with Mastodon's own message", () =>
    given([created, twoKeywords])
      .when(update({ settings: { title: 'x' }, legacySingleKeywordGuard: true }))
      .thenThrows(
        RuleViolation,
        'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
      ));

  it('refuses a status id with anything but up to 19 digits around it', () => {
    for (const statusId of ['x1', '1x', '', '12345678901234567890']) {
      given([created]).when(filterStatus('5', statusId)).thenThrows(ValidationError, 'Validation failed: Status must exist');
    }
    given([created])
      .when(filterStatus('5', '1234567890123456789'))
      .then([filtered('5', '1234567890123456789')]);
  });

  it('filters a second, different status of the same filter', () =>
    given([created, filtered('5', '9')])
      .when(filterStatus('6', '10'))
      .then([filtered('6', '10')]));

  it('finds no filtered status by an id it does not hold, even when it holds others', () =>
    given([created, filtered('5', '9')])
      .when(unfilter('6'))
      .thenThrows(NotFoundError));

  it('filters a status again once it was unfiltered', () =>
    given([created, filtered('5', '9'), unfiltered('5', '9')])
      .when(filterStatus('6', '9'))
      .then([filtered('6', '9')]));
});
