/** Subject on which an account's timeline subscribers hear about its filters. */
export function timelineSubject(accountId: string): string {
  return `timeline.${accountId}`;
}

/** Exactly Mastodon's message: no payload key. */
export const FILTERS_CHANGED = '{"event":"filters_changed"}';

/** The notifications port: announces that an account's filters changed. */
export interface Notifier {
  filtersChanged(accountId: string): Promise<void>;
  close(): Promise<void>;
}
