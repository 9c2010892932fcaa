import { keywordsAfter, type FilterEvent, type FilterSettings, type Keyword } from '../../events/filter-events.ts';

export interface FilteredStatus {
  readonly id: string;
  readonly statusId: string;
}

export type FilterState =
  | { readonly phase: 'none' }
  | {
      readonly phase: 'active';
      readonly filterId: string;
      readonly accountId: string;
      readonly settings: FilterSettings;
      readonly keywords: readonly Keyword[];
      readonly statuses: readonly FilteredStatus[];
    }
  | { readonly phase: 'deleted'; readonly filterId: string; readonly accountId: string };

export type ActiveFilter = Extract<FilterState, { phase: 'active' }>;

export const initialState = (): FilterState => ({ phase: 'none' });

/** A state's size in keywords and statuses (plus one for the filter), for caches that bound their memory. */
export const filterStateWeight = (state: FilterState): number => (state.phase === 'active' ? 1 + state.keywords.length + state.statuses.length : 1);

const settingsOf = ({ title, context, action, expiresAt }: FilterSettings): FilterSettings => ({ title, context, action, expiresAt });

/**
 * Total and dumb: folds facts, never validates, ignores events that do not fit the phase, and ignores an
 * event type it does not know (the reader skips those; a fold must not be the place that breaks).
 */
export function evolve(state: FilterState, event: FilterEvent): FilterState {
  switch (event.type) {
    case 'FilterCreated':
      if (state.phase !== 'none') return state;
      return {
        phase: 'active',
        filterId: event.data.filterId,
        accountId: event.data.accountId,
        settings: settingsOf(event.data),
        keywords: [],
        statuses: [],
      };
    case 'FilterUpdated':
      return state.phase === 'active' ? { ...state, settings: settingsOf(event.data) } : state;
    case 'KeywordsUpdated':
      return state.phase === 'active' ? { ...state, keywords: keywordsAfter(state.keywords, event.data) } : state;
    case 'StatusFiltered':
      if (state.phase !== 'active') return state;
      return { ...state, statuses: [...state.statuses, { id: event.data.filterStatusId, statusId: event.data.statusId }] };
    case 'StatusUnfiltered':
      if (state.phase !== 'active') return state;
      return { ...state, statuses: state.statuses.filter((s) => s.id !== event.data.filterStatusId) };
    case 'FilterDeleted':
      return state.phase === 'active' ? { phase: 'deleted', filterId: state.filterId, accountId: state.accountId } : state;
    default:
      return ignored(event, state);
  }
}

/** Keeps the switch above exhaustive for the compiler while an unknown event changes nothing at run time. */
function ignored(_event: never, state: FilterState): FilterState {
  return state;
}
