import type { FilterEvent, FilterSettings, Keyword } from '../../events/filter-events.ts';
import { NotFoundError, RuleViolation, ValidationError } from '../errors.ts';
import type { CreateFilter, DeleteFilter, FilterCommand, FilterStatus, UnfilterStatus, UpdateFilter } from './commands.ts';
import { filterProblems, MULTIPLE_KEYWORDS_MESSAGE, normaliseContext, statusProblems } from './filter-rules.ts';
import { evolve, initialState, type ActiveFilter, type FilterState } from './filter-state.ts';

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
  rejectProblems(filterProblems(settings, data.keywords, 'Keywords keyword'));
  const created: FilterEvent = {
    type: 'FilterCreated',
    data: { filterId: data.filterId, accountId: data.accountId, ...(settings as FilterSettings), createdAt: data.now },
  };
  if (data.keywords.length === 0) return [created];
  return [created, { type: 'KeywordsUpdated', data: { filterId: data.filterId, keywords: data.keywords, updatedAt: data.now } }];
}

function nextKeywords(filter: ActiveFilter, data: UpdateFilter['data']): readonly Keyword[] {
  const known = new Set(filter.keywords.map((k) => k.id));
  const named = [...(data.changeKeywords ?? []).map((c) => c.id), ...(data.removeKeywords ?? [])];
  if (named.some((id) => !known.has(id))) throw new NotFoundError();
  const removed = new Set(data.removeKeywords ?? []);
  const changed = new Map((data.changeKeywords ?? []).map((c) => [c.id, c]));
  const kept = filter.keywords
    .filter((k) => !removed.has(k.id))
    .map((k) => {
      const change = changed.get(k.id);
      return change ? { id: k.id, keyword: change.keyword ?? k.keyword, wholeWord: change.wholeWord ?? k.wholeWord } : k;
    });
  return [...kept, ...(data.addKeywords ?? [])];
}

const sameSettings = (a: FilterSettings, b: FilterSettings): boolean => JSON.stringify(a) === JSON.stringify(b);
const sameKeywords = (a: readonly Keyword[], b: readonly Keyword[]): boolean =>
  a.length === b.length && a.every((k, i) => k.id === b[i]!.id && k.keyword === b[i]!.keyword && k.wholeWord === b[i]!.wholeWord);

function updateFilter({ data }: UpdateFilter, state: FilterState): FilterEvent[] {
  const filter = ownedBy(state, data.accountId);
  const keywords = nextKeywords(filter, data);
  const given = data.settings ?? {};
  const settings = {
    ...filter.settings,
    ...given,
    ...(given.context ? { context: normaliseContext(given.context) } : {}),
  };
  rejectProblems(filterProblems(settings, keywords, data.keywordLabel ?? 'Keywords keyword'));
  const settingsChanged = !sameSettings(settings as FilterSettings, filter.settings);
  if (settingsChanged && data.legacySingleKeywordGuard && filter.keywords.length > 1) {
    throw new RuleViolation(MULTIPLE_KEYWORDS_MESSAGE);
  }
  const events: FilterEvent[] = [];
  if (settingsChanged) {
    events.push({ type: 'FilterUpdated', data: { filterId: data.filterId, ...(settings as FilterSettings), updatedAt: data.now } });
  }
  if (!sameKeywords(keywords, filter.keywords)) {
    events.push({ type: 'KeywordsUpdated', data: { filterId: data.filterId, keywords, updatedAt: data.now } });
  }
  return events;
}

function filterStatus({ data }: FilterStatus, state: FilterState): FilterEvent[] {
  const filter = ownedBy(state, data.accountId);
  rejectProblems(statusProblems(data.statusId));
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
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const filterDecider = { decide, evolve, initialState };
