/** Subject on which an account's timeline subscribers hear about its filters. */
export function timelineSubject(accountId: string): string {
  return `timeline.${accountId}`;
}

/** Exactly Mastodon's message: no payload key. */
export const FILTERS_CHANGED = '{"event":"filters_changed"}';

/** 'off': no NATS_URL, nothing is announced on NATS; 'in-process': a bus inside the process (tests). */
export type NotifierState = 'off' | 'in-process' | 'connected' | 'reconnecting' | 'closed';

/** The notifications port: announces that an account's filters changed. */
export interface Notifier {
  filtersChanged(accountId: string): Promise<void>;
  /** Where announcements go right now; a notifier without one is taken as in-process. */
  state?(): NotifierState;
  /** Accounts whose filters_changed waits for the transport to come back (none for the in-process bus). */
  waiting?(): number;
  close(): Promise<void>;
}
