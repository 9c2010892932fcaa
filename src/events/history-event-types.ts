import { ACCOUNT_EVENT_VERSIONS } from '../accounts/account-events.ts';
import { ACCOUNT_USAGE_EVENT_TYPES } from './account-usage-events.ts';
import { FILTER_EVENT_TYPES } from './filter-events.ts';

/**
 * Every event type the log can hold, as auditors name them in `events --type`: a name outside this list
 * can match nothing, so it is refused rather than answered with an empty history.
 */
export const HISTORY_EVENT_TYPES: readonly string[] = [...FILTER_EVENT_TYPES, ...Object.keys(ACCOUNT_EVENT_VERSIONS), ...ACCOUNT_USAGE_EVENT_TYPES];
