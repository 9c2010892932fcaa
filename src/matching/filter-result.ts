/**
 * Mastodon's FilterResult entity (REST::FilterResultSerializer). Inside it the filter is serialised
 * without `keywords` and `statuses`, since Mastodon does not pass `rules_requested` there.
 */
export interface FilterResultFilter {
  readonly id: string;
  readonly title: string;
  readonly context: readonly string[];
  readonly expires_at: string | null;
  readonly filter_action: string;
}

export interface FilterResult {
  readonly filter: FilterResultFilter;
  /** The first match as it appears in the status, or null. */
  readonly keyword_matches: readonly string[] | null;
  /** Null when the filter has no status rules; `[]` when it has some but none is this status. */
  readonly status_matches: readonly string[] | null;
}

export function filterResultFilterJson(filter: {
  readonly id: string;
  readonly title: string;
  readonly context: readonly string[];
  readonly expiresAt: string | null;
  readonly filterAction: string;
}): FilterResultFilter {
  return { id: filter.id, title: filter.title, context: filter.context, expires_at: filter.expiresAt, filter_action: filter.filterAction };
}
