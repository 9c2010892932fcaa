import { filterDecider } from '../../src/commands/filter/decider.ts';
import { MULTIPLE_KEYWORDS_MESSAGE } from '../../src/commands/filter/filter-rules.ts';
import type { FilterCommand, SettingsInput } from '../../src/commands/filter/commands.ts';
import { NotFoundError, RuleViolation, ValidationError } from '../../src/commands/errors.ts';
import type { FilterEvent } from '../../src/events/filter-events.ts';
import { specFor } from '../support/given.ts';

const given = specFor(filterDecider);
const now = '2026-11-22T10:00:00.000Z';
const filterId = '1001';
const owner = '7';
const stranger = '8';
const settings: SettingsInput = { title: 'magic', context: ['home'], action: 'hide', expiresAt: null };

const created = (overrides: Partial<SettingsInput> = {}): FilterEvent => ({
  type: 'FilterCreated',
  data: { filterId, accountId: owner, ...settings, ...overrides, createdAt: now } as never,
});
type Delta = { removed?: string[]; changed?: [string, string, boolean][]; added?: [string, string, boolean][] };
const toKeywords = (list: [string, string, boolean][] = []) => list.map(([id, keyword, wholeWord]) => ({ id, keyword, wholeWord }));
const keywordsChanged = ({ removed = [], changed, added }: Delta): FilterEvent => ({
  type: 'KeywordsUpdated',
  data: { filterId, removed, changed: toKeywords(changed), added: toKeywords(added), replacesAll: false, updatedAt: now },
});
const keywords = (...list: [string, string][]): FilterEvent => keywordsChanged({ added: list.map(([id, keyword]) => [id, keyword, true]) });
const create = (overrides: Partial<SettingsInput> = {}, kw = [{ id: '2001', keyword: 'magic', wholeWord: true }]): FilterCommand => ({
  type: 'CreateFilter',
  data: { filterId, accountId: owner, now, settings: { ...settings, ...overrides }, keywords: kw },
});
const update = (data: Partial<Extract<FilterCommand, { type: 'UpdateFilter' }>['data']>, accountId = owner): FilterCommand => ({
  type: 'UpdateFilter',
  data: { filterId, accountId, now, ...data },
});

describe('Filter decider', () => {
  describe('when no filter exists', () => {
    it('creates the filter and its keywords', () =>
      given([])
        .when(create())
        .then([created(), keywords(['2001', 'magic'])]));

    it('creates a filter without keywords with one event', () => given([]).when(create({}, [])).then([created()]));

    it('strips context entries and drops blank ones', () =>
      given([])
        .when(create({ context: [' home', 'public    ', ''] }, []))
        .then([created({ context: ['home', 'public'] })]));

    it("refuses a missing title and context with all of Mastodon's messages", () =>
      given([])
        .when(create({ title: ' ', context: [] }))
        .thenThrows(ValidationError, "Validation failed: Title can't be blank, Context can't be blank, Context None or invalid context supplied"));

    it('refuses an unknown action', () =>
      given([])
        .when(create({ action: 'imaginary_value' }))
        .thenThrows(ValidationError, /Action is not included in the list/));

    it('refuses an unknown context', () =>
      given([])
        .when(create({ context: ['shaolin'] }))
        .thenThrows(ValidationError, 'Validation failed: Context None or invalid context supplied'));

    it('counts title length in characters, up to 256', () => {
      given([])
        .when(create({ title: '🙂'.repeat(256) }, []))
        .then([created({ title: '🙂'.repeat(256) })]);
      given([])
        .when(create({ title: 'x'.repeat(257) }))
        .thenThrows(ValidationError, 'Validation failed: Title is too long (maximum is 256 characters)');
    });

    it('refuses blank and over-long keywords with the nested label', () => {
      given([])
        .when(create({}, [{ id: '1', keyword: '', wholeWord: true }]))
        .thenThrows(ValidationError, "Validation failed: Keywords keyword can't be blank");
      given([])
        .when(create({}, [{ id: '1', keyword: 'k'.repeat(513), wholeWord: true }]))
        .thenThrows(ValidationError, 'Validation failed: Keywords keyword is too long (maximum is 512 characters)');
    });

    it('finds nothing to update, delete or filter', () => {
      given([])
        .when(update({ settings: { title: 'x' } }))
        .thenThrows(NotFoundError);
      given([])
        .when({ type: 'DeleteFilter', data: { filterId, accountId: owner, now } })
        .thenThrows(NotFoundError);
      given([])
        .when({ type: 'FilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '5', statusId: '9' } })
        .thenThrows(NotFoundError);
    });
  });

  describe('when the filter exists', () => {
    const history = [created(), keywords(['2001', 'magic'], ['2002', 'tv'])];

    it('refuses to create it again', () => given(history).when(create()).thenThrows(RuleViolation));

    it('updates only the settings that were sent', () =>
      given(history)
        .when(update({ settings: { title: 'updated', context: ['home', 'public'] } }))
        .then([{ type: 'FilterUpdated', data: { filterId, title: 'updated', context: ['home', 'public'], action: 'hide', expiresAt: null, updatedAt: now } }]));

    it('changes nothing when nothing differs', () =>
      given(history)
        .when(update({ settings: { title: 'magic' } }))
        .thenNothing());

    it('updates, removes and adds keywords in one event', () =>
      given(history)
        .when(
          update({
            changeKeywords: [{ id: '2001', keyword: 'updated' }],
            removeKeywords: ['2002'],
            addKeywords: [{ id: '2003', keyword: 'new', wholeWord: false }],
          }),
        )
        .then([keywordsChanged({ removed: ['2002'], changed: [['2001', 'updated', true]], added: [['2003', 'new', false]] })]));

    it('carries only the keywords that really change', () =>
      given(history)
        .when(
          update({
            changeKeywords: [
              { id: '2001', keyword: 'magic' },
              { id: '2002', wholeWord: false },
            ],
            removeKeywords: [],
          }),
        )
        .then([keywordsChanged({ changed: [['2002', 'tv', false]] })]));

    it('changes nothing when every keyword change is a no-op', () =>
      given(history)
        .when(update({ changeKeywords: [{ id: '2001', keyword: 'magic', wholeWord: true }] }))
        .thenNothing());

    it('finds no keyword of another filter', () =>
      given(history)
        .when(update({ changeKeywords: [{ id: '9999', keyword: 'x' }] }))
        .thenThrows(NotFoundError));

    it('uses the plain keyword label on the keyword endpoints', () =>
      given(history)
        .when(update({ addKeywords: [{ id: '3', keyword: ' ', wholeWord: true }], keywordLabel: 'Keyword' }))
        .thenThrows(ValidationError, "Validation failed: Keyword can't be blank"));

    it('refuses v1 changes to filter settings when several keywords share them', () =>
      given(history)
        .when(update({ settings: { context: ['public'] }, legacySingleKeywordGuard: true }))
        .thenThrows(RuleViolation, MULTIPLE_KEYWORDS_MESSAGE));

    it('allows v1 keyword-only changes on a filter with several keywords', () =>
      given(history)
        .when(update({ changeKeywords: [{ id: '2002', wholeWord: false }], legacySingleKeywordGuard: true }))
        .then([keywordsChanged({ changed: [['2002', 'tv', false]] })]));

    it('hides it from another account', () => {
      given(history)
        .when(update({ settings: { title: 'x' } }, stranger))
        .thenThrows(NotFoundError);
      given(history)
        .when({ type: 'DeleteFilter', data: { filterId, accountId: stranger, now } })
        .thenThrows(NotFoundError);
    });

    it('filters a status once, and refuses the same status twice', () => {
      const filtered: FilterEvent = { type: 'StatusFiltered', data: { filterId, filterStatusId: '5', statusId: '9', filteredAt: now } };
      given(history)
        .when({ type: 'FilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '5', statusId: '9' } })
        .then([filtered]);
      given([...history, filtered])
        .when({ type: 'FilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '6', statusId: '9' } })
        .thenThrows(ValidationError, 'Validation failed: Status has already been taken');
    });

    it('refuses a status id that cannot exist', () =>
      given(history)
        .when({ type: 'FilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '5', statusId: 'abc' } })
        .thenThrows(ValidationError, 'Validation failed: Status must exist'));

    it('unfilters a filtered status and finds no other', () => {
      const filtered: FilterEvent = { type: 'StatusFiltered', data: { filterId, filterStatusId: '5', statusId: '9', filteredAt: now } };
      given([...history, filtered])
        .when({ type: 'UnfilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '5' } })
        .then([{ type: 'StatusUnfiltered', data: { filterId, filterStatusId: '5', statusId: '9', unfilteredAt: now } }]);
      given(history)
        .when({ type: 'UnfilterStatus', data: { filterId, accountId: owner, now, filterStatusId: '5' } })
        .thenThrows(NotFoundError);
    });

    it('deletes it', () =>
      given(history)
        .when({ type: 'DeleteFilter', data: { filterId, accountId: owner, now } })
        .then([{ type: 'FilterDeleted', data: { filterId, deletedAt: now } }]));
  });

  describe('when the stream holds an event type this version does not know', () => {
    const future = { type: 'FilterRenamedInTheFuture', data: { filterId, title: 'renamed' } } as unknown as FilterEvent;

    it('folds past it, so later commands still find the filter', () =>
      given([created(), future, keywords(['2001', 'magic'])])
        .when(update({ settings: { title: 'u' } }))
        .then([{ type: 'FilterUpdated', data: { filterId, ...settings, title: 'u', updatedAt: now } } as FilterEvent]));

    it('does not let it create a filter', () =>
      given([future])
        .when(update({ settings: { title: 'u' } }))
        .thenThrows(NotFoundError));
  });

  describe('when the filter was deleted', () => {
    const history = [created(), { type: 'FilterDeleted', data: { filterId, deletedAt: now } } as FilterEvent];

    it('finds nothing to update or delete', () => {
      given(history)
        .when(update({ settings: { title: 'x' } }))
        .thenThrows(NotFoundError);
      given(history)
        .when({ type: 'DeleteFilter', data: { filterId, accountId: owner, now } })
        .thenThrows(NotFoundError);
    });
  });
});
