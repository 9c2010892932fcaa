import type { FilterEvent, FilterSettings } from '../../events/filter-events.ts';
import { RuleViolation, ValidationError } from '../errors.ts';
import type { ImportFilter } from './commands.ts';
import { accountFilterProblems, FILTER_LIMITS, filterLimitProblems } from './filter-limits.ts';
import { filterProblems, normaliseContext, statusProblems } from './filter-rules.ts';
import type { FilterState } from './filter-state.ts';

/** The problems of the statuses a filter brings along: each must be a status id, once, and no more than a filter may hold. */
function importedStatusProblems(statuses: ImportFilter['data']['statuses']): string[] {
  const problems = statuses.flatMap((s) => statusProblems(s.statusId));
  if (new Set(statuses.map((s) => s.statusId)).size < statuses.length) problems.push('Status has already been taken');
  if (statuses.length > FILTER_LIMITS.statusesPerFilter) {
    problems.push(`Statuses are too many (maximum is ${FILTER_LIMITS.statusesPerFilter} per filter)`);
  }
  return problems;
}

/**
 * A filter Mastodon held, taken into the log as one commit: created when Mastodon created it, its
 * keywords (in Mastodon's order) and its statuses. Judged as a create would be, so the log never holds
 * a filter the API could not have stored. A stream that exists already is this filter imported before
 * (and maybe changed or deleted through the API since): nothing is decided, so a second import changes
 * nothing. Only another account's filter under the same id is refused.
 */
export function importFilter({ data }: ImportFilter, state: FilterState): FilterEvent[] {
  if (state.phase !== 'none') {
    if (state.accountId === data.accountId) return [];
    throw new RuleViolation(`filter ${data.filterId} is in the log already, for another account`);
  }
  const settings = { ...data.settings, context: normaliseContext(data.settings.context) };
  const problems = [
    ...filterProblems(settings, data.keywords, 'Keywords keyword'),
    ...importedStatusProblems(data.statuses),
    ...accountFilterProblems(data.accountUsage),
    ...filterLimitProblems([], data.keywords, data.accountUsage),
  ];
  if (problems.length > 0) throw new ValidationError([...new Set(problems)]);
  const events: FilterEvent[] = [
    {
      type: 'FilterCreated',
      data: { filterId: data.filterId, accountId: data.accountId, ...(settings as FilterSettings), createdAt: data.createdAt },
    },
  ];
  if (data.keywords.length > 0) {
    const added = { filterId: data.filterId, removed: [], changed: [], added: data.keywords, replacesAll: false, updatedAt: data.keywordsUpdatedAt };
    events.push({ type: 'KeywordsUpdated', data: added });
  }
  for (const status of data.statuses) {
    events.push({
      type: 'StatusFiltered',
      data: { filterId: data.filterId, filterStatusId: status.id, statusId: status.statusId, filteredAt: status.filteredAt },
    });
  }
  return events;
}
