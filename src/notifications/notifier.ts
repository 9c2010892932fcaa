/** Subject on which an account's timeline subscribers hear about its filters. */
export function timelineSubject(accountId: string): string {
  return `timeline.${accountId}`;
}

/** Exactly Mastodon's message: no payload key. */
export const FILTERS_CHANGED = '{"event":"filters_changed"}';

/** NATS headers of an announcement: the id JetStream deduplicates by, and the log position of its commit. */
export const MESSAGE_ID_HEADER = 'Nats-Msg-Id';
export const POSITION_HEADER = 'Content-Filters-Position';

/** One committed request that changed an account's filters, as the announcer publishes it. */
export interface Announcement {
  readonly accountId: string;
  /** Derived from the commit (its last event's id): the same on every re-publish, unique across commits. */
  readonly messageId: string;
  /** Global log position of the commit's last event. */
  readonly position: bigint;
}

/** What a transport says it keeps last: the headers of the announcement it holds. */
export interface HeldAnnouncement {
  readonly messageId: string;
  readonly position: bigint;
}

/**
 * `duplicate`: the transport already had this commit (a re-publish after a crash): JetStream dropped it
 * by its message id, or the announcer saw it in the stream and did not publish it again.
 */
export type PublishOutcome = 'published' | 'duplicate';

/**
 * For /health: `off` without NATS_URL (nothing is announced on NATS); `in-process` for a bus inside the
 * process (tests); the transport's connection otherwise (`connecting`: never reached since start;
 * `reconnecting`: lost, trying again).
 */
export type NotifierState = 'off' | 'in-process' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/**
 * The announcements port: one transport (NATS, Redis, an in-process bus). The announcer gives it one
 * announcement at a time, in log order, and moves its checkpoint only once `announce` has resolved, so
 * an adapter resolves only when its transport has confirmed the message and rejects otherwise.
 */
export interface Notifier {
  /** Names the announcer's checkpoint for this transport: each transport keeps its own. */
  readonly channel: string;
  announce(announcement: Announcement): Promise<PublishOutcome>;
  /** Where announcements go right now; a notifier without one is taken as in-process. */
  state?(): NotifierState;
  /**
   * The last announcement the transport keeps (JetStream: the stream's last message), or null when it
   * keeps none; a transport that keeps nothing (core NATS, Redis) leaves it out. Asked fresh each time.
   */
  lastHeld?(): Promise<HeldAnnouncement | null>;
  /**
   * Every announcement the transport keeps past `position` (at most `limit`, newest first): the last
   * message alone does not prove the ones before it are kept (a publish can fail while a later one,
   * already in flight, is stored), so the announcer skips exactly these and publishes the rest.
   */
  heldAfter?(position: bigint | null, limit: number): Promise<HeldAnnouncement[]>;
  /** Extra facts for /health (NATS: whether JetStream keeps the stream). */
  details?(): Record<string, unknown>;
  close(): Promise<void>;
}

/** The transport could not take an announcement now; the announcer tries again later. */
export class NotifierUnavailableError extends Error {
  override readonly name = 'NotifierUnavailableError';
}
