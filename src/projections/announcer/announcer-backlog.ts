import type { EventStore } from '../../events/event-store.ts';
import { announcementsIn } from './announcements-in.ts';

/** What waits to be announced: commits (counted up to a bound) and the age of the oldest waiting event. */
export interface Backlog {
  readonly commits: number;
  /** True when more wait than were counted. */
  readonly more: boolean;
  readonly lagSeconds: number;
}

/** Counting stops here, so a health probe during a long outage stays one bounded read. */
const COUNT_LIMIT = 1000;

/** Measures an announcer's backlog from the log, for /health and /metrics. */
export class AnnouncerBacklog {
  constructor(
    private readonly events: EventStore,
    private readonly position: () => bigint | null,
    private readonly now: () => number = Date.now,
  ) {}

  async measure(): Promise<Backlog> {
    const page = await this.events.readAll({ after: this.position(), limit: COUNT_LIMIT });
    const first = page[0];
    return {
      commits: announcementsIn(page).length,
      more: page.length >= COUNT_LIMIT,
      lagSeconds: first ? Math.max(0, this.now() - Date.parse(first.recordedAt)) / 1000 : 0,
    };
  }
}
