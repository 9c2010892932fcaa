import type { EventStore } from '../events/event-store.ts';
import { announcementChannels } from '../notifications/fan-out-notifier.ts';
import { NatsNotifier } from '../notifications/nats-notifier.ts';
import type { Notifier, NotifierState } from '../notifications/notifier.ts';
import type { Announcer } from '../projections/announcer/announcer.ts';
import { AnnouncerBacklog } from '../projections/announcer/announcer-backlog.ts';
import type { AnnouncedPositions } from '../projections/stores/announced-positions.ts';

/** One transport's announcements, as /health shows them. */
export interface AnnouncementReport {
  readonly channel: string;
  readonly state: NotifierState;
  /** Announced (confirmed by the transport) up to this log position; null before the first. */
  readonly announcedUpTo: string | null;
  /** Commits waiting to be announced (counted up to 1,000; `waitingMore` says there are more). */
  readonly waitingCommits: number | null;
  readonly waitingMore?: boolean;
  /** Age of the oldest event not yet announced (0 when none waits). */
  readonly lagSeconds: number | null;
  readonly [detail: string]: unknown;
}

/** Degraded, not dead: a transport that is away delays announcements; reads and writes go on. */
export const isDegraded = (report: AnnouncementReport): boolean => !['connected', 'in-process'].includes(report.state) || report.streamProblem !== undefined;

/**
 * Each transport's state and backlog: the live announcer's position where this process announces (it
 * holds the lease), else the stored checkpoint, which every process shares.
 */
export async function announcementReports(
  notifier: Notifier,
  running: readonly Announcer[],
  positions: AnnouncedPositions,
  events: EventStore,
  timeoutMs = 2000,
): Promise<AnnouncementReport[]> {
  return Promise.all(
    announcementChannels(notifier).map(async (channel) => {
      const streamAsked = channel instanceof NatsNotifier ? within(channel.streamInfo(), timeoutMs).catch(() => null) : null;
      const live = running.find((announcer) => announcer.channel === channel.channel);
      let position: bigint | null = null;
      let known = true;
      try {
        position = live ? live.announcedUpTo : ((await within(positions.announced(channel.channel), timeoutMs))?.position ?? null);
      } catch {
        known = false;
      }
      const backlog = known ? await within(new AnnouncerBacklog(events, () => position).measure(), timeoutMs).catch(() => null) : null;
      const stream = await streamAsked;
      return {
        channel: channel.channel,
        state: channel.state?.() ?? 'in-process',
        ...channel.details?.(),
        announcedUpTo: known ? (position?.toString() ?? null) : null,
        waitingCommits: backlog?.commits ?? null,
        ...(backlog?.more ? { waitingMore: true } : {}),
        lagSeconds: backlog?.lagSeconds ?? null,
        ...(stream ? { streamMessages: stream.state.messages, streamLastSequence: stream.state.last_seq } : {}),
      };
    }),
  );
}

/**
 * A store or server cut off by the network answers nothing until TCP gives up (minutes): /health must
 * still answer, so an unanswered question counts as unknown after `ms`.
 */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  void promise.catch(() => {});
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
