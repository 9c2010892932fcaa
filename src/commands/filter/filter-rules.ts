import type { FilterAction, FilterContext, Keyword } from '../../events/filter-events.ts';
import type { KeywordLabel, SettingsInput } from './commands.ts';

export const FILTER_ACTIONS: readonly FilterAction[] = ['warn', 'hide', 'blur'];
export const FILTER_CONTEXTS: readonly FilterContext[] = ['home', 'notifications', 'public', 'thread', 'account'];
export const TITLE_LENGTH_LIMIT = 256;
export const KEYWORD_LENGTH_LIMIT = 512;

export const MULTIPLE_KEYWORDS_MESSAGE =
  'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.';

/** Characters as Ruby counts them (code points), not UTF-16 units. */
const lengthOf = (text: string): number => [...text].length;
const isBlank = (text: string): boolean => text.trim() === '';

/** Mastodon strips each context entry and drops the blank ones before validating. */
export function normaliseContext(context: readonly string[]): string[] {
  return context.map((c) => c.trim()).filter((c) => c !== '');
}

export function isFilterAction(action: string): action is FilterAction {
  return (FILTER_ACTIONS as readonly string[]).includes(action);
}

function isFilterContext(context: string): context is FilterContext {
  return (FILTER_CONTEXTS as readonly string[]).includes(context);
}

/** Mastodon's validation messages for a filter as it would be saved, in its order. */
export function filterProblems(settings: SettingsInput, keywords: readonly Keyword[], label: KeywordLabel): string[] {
  const problems: string[] = [];
  if (!isFilterAction(settings.action)) problems.push('Action is not included in the list');
  if (isBlank(settings.title)) problems.push("Title can't be blank");
  else if (lengthOf(settings.title) > TITLE_LENGTH_LIMIT) {
    problems.push(`Title is too long (maximum is ${TITLE_LENGTH_LIMIT} characters)`);
  }
  if (settings.context.length === 0) problems.push("Context can't be blank");
  if (settings.context.length === 0 || !settings.context.every(isFilterContext)) {
    problems.push('Context None or invalid context supplied');
  }
  problems.push(...keywordProblems(keywords, label));
  return [...new Set(problems)];
}

export function keywordProblems(keywords: readonly Keyword[], label: KeywordLabel): string[] {
  const problems: string[] = [];
  for (const { keyword } of keywords) {
    if (isBlank(keyword)) problems.push(`${label} can't be blank`);
    else if (lengthOf(keyword) > KEYWORD_LENGTH_LIMIT) {
      problems.push(`${label} is too long (maximum is ${KEYWORD_LENGTH_LIMIT} characters)`);
    }
  }
  return [...new Set(problems)];
}

/** Mastodon keeps status ids as bigints: anything else cannot name an existing status. */
export function statusProblems(statusId: string): string[] {
  return /^[0-9]{1,19}$/.test(statusId) ? [] : ['Status must exist'];
}
