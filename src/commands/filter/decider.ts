import { keywordsAfter, type FilterEvent, type FilterSettings, type Keyword, type KeywordsUpdated } from '../../events/filter-events.ts';
import { NotFoundError, RuleViolation, ValidationError } from '../errors.ts';
import type { CreateFilter, DeleteFilter, FilterCommand, FilterStatus, UnfilterStatus, UpdateFilter } from './commands.ts';
import { accountFilterProblems, filterLimitProblems, statusLimitProblems } from './filter-limits.ts';
import { filterProblems, MULTIPLE_KEYWORDS_MESSAGE, normaliseContext, statusProblems } from './filter-rules.ts';
import { evolve, initialState, type ActiveFilter, type FilterState } from './filter-state.ts';
import { importFilter } from './import-filter.ts';

/** Only the owner may see that a filter exists; anyone else gets the same answer as for no filter. */
function ownedBy(state: FilterState, accountId: string): ActiveFilter {
  if (state.phase !== 'active' || state.accountId !== accountId) throw new NotFoundError();
  return state;
}

function rejectProblems(problems: readonly string[]): void {
  if (problems.length > 0) throw new ValidationError(problems);
}

function createFilter({ data }: CreateFilter, state: FilterState): FilterEvent[] {
  if (state.phase !== 'none') throw new RuleViolation(`filter ${data.filterId} already exists`);
  const settings = { ...data.settings, context: normaliseContext(data.settings.context) };
  rejectProblems([
    ...filterProblems(settings, data.keywords, 'Keywords keyword'),
    ...accountFilterProblems(data.accountUsage),
    ...filterLimitProblems([], data.keywords, data.accountUsage),
  ]);
  const created: FilterEvent = {
    type: 'FilterCreated',
    data: { filterId: data.filterId, accountId: data.accountId, ...(settings as FilterSettings), createdAt: data.now },
  };
  if (data.keywords.length === 0) return [created];
  const added = { filterId: data.filterId, removed: [], changed: [], added: data.keywords, replacesAll: false, updatedAt: data.now };
  return [created, { type: 'KeywordsUpdated', data: added }];
}

type KeywordDelta = Pick<KeywordsUpdated['data'], 'removed' | 'changed' | 'added'>;

const sameKeyword = (a: Keyword, b: Keyword): boolean => a.keyword === b.keyword && a.wholeWord === b.wholeWord;

/** The change the command asks for, reduced to what really differs; every id it names must exist. */
function keywordDelta(filter: ActiveFilter, data: UpdateFilter['data']): KeywordDelta {
  const known = new Map(filter.keywords.map((k) => [k.id, k]));
  const named = [...(data.changeKeywords ?? []).map((c) => c.id), ...(data.removeKeywords ?? [])];
  if (named.some((id) => !known.has(id))) throw new NotFoundError();
  const removed = new Set(data.removeKeywords ?? []);
  const changes = new Map((data.changeKeywords ?? []).map((c) => [c.id, c]));
  const changed: Keyword[] = [];
  for (const [id, change] of changes) {
    const keyword = known.get(id)!;
    const next = { id, keyword: change.keyword ?? keyword.keyword, wholeWord: change.wholeWord ?? keyword.wholeWord };
    if (!removed.has(id) && !sameKeyword(next, keyword)) changed.push(next);
  }
  return { removed: [...removed], changed, added: data.addKeywords ?? [] };
}

const sameSettings = (a: FilterSettings, b: FilterSettings): boolean => JSON.stringify(a) === JSON.stringify(b);

function updateFilter({ data }: UpdateFilter, state: FilterState): FilterEvent[] {
  const filter = ownedBy(state, data.accountId);
  const delta = keywordDelta(filter, data);
  const change = { filterId: data.filterId, ...delta, replacesAll: false, updatedAt: data.now };
  const keywords = keywordsAfter(filter.keywords, change);
  const given = data.settings ?? {};
  const settings = {
    ...filter.settings,
    ...given,
    ...(given.context ? { context: normaliseContext(given.context) } : {}),
  };
  rejectProblems([
    ...filterProblems(settings, keywords, data.keywordLabel ?? 'Keywords keyword'),
    ...filterLimitProblems(filter.keywords, keywords, data.accountUsage),
  ]);
  const settingsChanged = !sameSettings(settings as FilterSettings, filter.settings);
  if (settingsChanged && data.legacySingleKeywordGuard && filter.keywords.length > 1) {
    throw new RuleViolation(MULTIPLE_KEYWORDS_MESSAGE);
  }
  const events: FilterEvent[] = [];
  if (settingsChanged) {
    events.push({ type: 'FilterUpdated', data: { filterId: data.filterId, ...(settings as FilterSettings), updatedAt: data.now } });
  }
  if (delta.removed.length > 0 || delta.changed.length > 0 || delta.added.length > 0) events.push({ type: 'KeywordsUpdated', data: change });
  return events;
}

function filterStatus({ data }: FilterStatus, state: FilterState): FilterEvent[] {
  const filter = ownedBy(state, data.accountId);
  rejectProblems([...statusProblems(data.statusId), ...statusLimitProblems(filter.statuses.length)]);
  if (filter.statuses.some((s) => s.statusId === data.statusId)) throw new ValidationError(['Status has already been taken']);
  return [
    {
      type: 'StatusFiltered',
      data: { filterId: data.filterId, filterStatusId: data.filterStatusId, statusId: data.statusId, filteredAt: data.now },
    },
  ];
}

function unfilterStatus({ data }: UnfilterStatus, state: FilterState): FilterEvent[] {
  const filter = ownedBy(state, data.accountId);
  const status = filter.statuses.find((s) => s.id === data.filterStatusId);
  if (!status) throw new NotFoundError();
  return [
    {
      type: 'StatusUnfiltered',
      data: { filterId: data.filterId, filterStatusId: status.id, statusId: status.statusId, unfilteredAt: data.now },
    },
  ];
}

function deleteFilter({ data }: DeleteFilter, state: FilterState): FilterEvent[] {
  ownedBy(state, data.accountId);
  return [{ type: 'FilterDeleted', data: { filterId: data.filterId, deletedAt: data.now } }];
}

/** Pure: the command carries the time and every id; an empty list means nothing changes. */
export function decide(command: FilterCommand, state: FilterState): FilterEvent[] {
  switch (command.type) {
    case 'CreateFilter':
      return createFilter(command, state);
    case 'UpdateFilter':
      return updateFilter(command, state);
    case 'FilterStatus':
      return filterStatus(command, state);
    case 'UnfilterStatus':
      return unfilterStatus(command, state);
    case 'DeleteFilter':
      return deleteFilter(command, state);
    case 'ImportFilter':
      return importFilter(command, state);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const filterDecider = { decide, evolve, initialState };
