import type { EventStore } from '../../events/event-store.ts';
import type { Notifier, PublishOutcome } from '../../notifications/notifier.ts';
import { backOffMs } from '../../shared/async-retry.ts';
import { silentLogger, type Logger } from '../../shared/logger.ts';
import { FILTERS_PROJECTION } from '../runtime/filter-projector.ts';
import type { AnnouncedPositions } from '../stores/announced-positions.ts';
import type { ReadStore } from '../stores/read-store.ts';
import { announcementsIn, type CommitCarry } from './announcements-in.ts';
import { heldBeyond } from './held-announcements.ts';
import { CatchUpLoop, IDLE, WORKED } from '../runtime/catch-up-loop.ts';
import { PositionWaiters } from '../runtime/position-waiters.ts';

/** What metrics count; the process wires it to its registry. */
export interface AnnouncerObserver {
  published(channel: string, outcome: PublishOutcome): void;
  failed(channel: string): void;
}

export const ignoreAnnouncer: AnnouncerObserver = { published: () => {}, failed: () => {} };

export interface AnnouncerOptions {
  readonly logger?: Logger;
  readonly observer?: AnnouncerObserver;
  /** Events read from the log at a time; the checkpoint is stored once per page. */
  readonly pageSize?: number;
  /** A safety net: the projector pokes the announcer when the read models move. */
  readonly idleRecheckMs?: number;
  readonly retryDelayMs?: (failures: number) => number;
  /** Asked before each publish: false once this process may no longer hold the projector lease. */
  readonly mayAnnounce?: () => boolean;
  /**
   * How far subscribers can read what is announced: the read models' checkpoint by default. Mastodon's
   * channel in Mastodon mode waits for Mastodon's filter tables too, which its streaming server refetches.
   */
  readonly readableUpTo?: () => Promise<bigint | null>;
}

export const defaultRetry = (failures: number) => backOffMs({ firstMs: 50, maxMs: 2000 }, Math.max(0, failures - 1));

/**
 * The outbox pattern with the log as the outbox: reads the log from its own stored checkpoint, never
 * past the read models' checkpoint (so a subscriber that refetches sees the change), and hands one
 * transport one announcement per changing commit, in log order. The checkpoint moves only past what the
 * transport confirmed, so a crash or an outage of any length delays announcements and loses none. What
 * was published after the stored checkpoint (a crash before it was stored, a publish whose confirmation
 * was lost) is not published again: after a start and after every failure, before publishing, the
 * announcer asks the transport what it holds (`heldBeyond`) and skips exactly those commits (not all
 * up to its last message: a failed publish can leave a gap below a later one that was stored), so
 * no downtime, however long, duplicates a commit in the stream; JetStream's duplicate window (the same
 * message id) is a second guard only.
 */
export class Announcer {
  /** Confirmed by the transport up to here (the stored checkpoint may trail it by one page). */
  private position: bigint | null = null;
  private stored: bigint | null = null;
  private readonly loop: CatchUpLoop;
  private readonly waiters = new PositionWaiters();
  /** The read models' checkpoint can stop inside a commit (after parking an event of it). */
  private carry: CommitCarry = { parked: false };
  /** Set at start and by every failure: look at what the transport holds before publishing again. */
  private unsure = true;
  /** Commits up to here are in the transport already: counted as duplicates, not published. */
  private heldUpTo: bigint | null = null;
  /** Which of those the transport holds, when it can tell: the others are published (a gap below its last). */
  private heldIds: ReadonlySet<string> | null = null;
  private readonly logger: Logger;
  private readonly observer: AnnouncerObserver;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore & AnnouncedPositions,
    readonly notifier: Notifier,
    private readonly options: AnnouncerOptions = {},
  ) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'announcer', channel: notifier.channel });
    this.observer = options.observer ?? ignoreAnnouncer;
    this.loop = new CatchUpLoop(async () => ((await this.step()) ? WORKED : IDLE), {
      idleRecheckMs: options.idleRecheckMs ?? 1000,
      retryThrown: { delayMs: options.retryDelayMs ?? defaultRetry, onFailure: (error, failures, log) => this.failed(error, failures, log) },
    });
  }

  get channel(): string {
    return this.notifier.channel;
  }

  /** Announced (confirmed) up to this position. */
  get announcedUpTo(): bigint | null {
    return this.position;
  }

  /**
   * Starts from the stored checkpoint. An announcer that never ran on this store starts where the read
   * models stand (what came before was announced by the projector itself, in older versions) and records
   * that at once, so a crash before its first publish cannot make it skip what comes next.
   */
  async start(): Promise<void> {
    if (this.loop.running) return;
    const announced = await this.reads.announced(this.channel);
    if (announced) {
      this.position = announced.position;
    } else {
      this.position = await this.reads.checkpoint(FILTERS_PROJECTION);
      await this.reads.markAnnounced(this.channel, this.position);
      this.logger.info({ from: this.position?.toString() ?? 'start' }, 'announcer starts on this store');
    }
    this.stored = this.position;
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.waiters.releaseAll(false);
  }

  /** The read models moved (or the transport came back): look at the log again. */
  poke(): void {
    this.loop.poke();
  }

  /** Resolves once everything up to `position` is announced, or the announcer stopped. */
  async announced(position: bigint): Promise<void> {
    if (!this.loop.running || (this.position !== null && this.position >= position)) return;
    await this.waiters.wait(position);
  }

  /** One page: false when there was nothing to announce up to the read models' checkpoint. */
  private async step(): Promise<boolean> {
    const upTo = await (this.options.readableUpTo?.() ?? this.reads.checkpoint(FILTERS_PROJECTION));
    if (upTo === null || (this.position !== null && this.position >= upTo)) return false;
    const read = await this.events.readAll({ after: this.position, limit: this.options.pageSize ?? 256 });
    const page = read.filter((e) => e.position <= upTo);
    const last = page.at(-1);
    if (!last) return this.skipScanned(read.scannedTo, upTo);
    const parked = await this.parkedPositions();
    if (this.unsure) await this.learnHeld();
    const carry = { ...this.carry };
    for (const announcement of announcementsIn(page, parked, carry)) {
      if (!this.loop.running || !(this.options.mayAnnounce?.() ?? true)) {
        await this.persist();
        return false;
      }
      const held = this.heldIds ? this.heldIds.has(announcement.messageId) : this.heldUpTo !== null && announcement.position <= this.heldUpTo;
      const outcome = held ? 'duplicate' : await this.notifier.announce(announcement);
      this.observer.published(this.channel, outcome);
      this.moved(announcement.position);
    }
    this.moved(last.position);
    this.carry = carry;
    await this.persist();
    return true;
  }

  /**
   * Nothing of ours up to the read models' checkpoint, but the store looked further (other streams'
   * events in a shared EventStoreDB): move over what it scanned, never past the read models, so neither
   * this loop nor a restarted announcer reads that stretch again.
   */
  private async skipScanned(scannedTo: bigint | undefined, upTo: bigint): Promise<boolean> {
    if (scannedTo === undefined) return false;
    const to = scannedTo < upTo ? scannedTo : upTo;
    if (this.position !== null && to <= this.position) return false;
    this.moved(to);
    await this.persist();
    return false;
  }

  /** What the transport holds beyond our checkpoint: those commits are not published again. */
  private async learnHeld(): Promise<void> {
    const held = await heldBeyond(this.events, this.notifier, this.position);
    this.unsure = false;
    this.heldUpTo = held.kind === 'ours' ? held.position : null;
    this.heldIds = held.kind === 'ours' ? held.ids : null;
    if (held.kind === 'ours')
      this.logger.info(
        { from: this.position?.toString() ?? 'start', heldUpTo: held.position.toString(), held: held.ids?.size },
        'the stream holds these already: not published again (any commit missing below its last is published)',
      );
    if (held.kind === 'foreign') {
      this.logger.warn(
        { position: held.held.position.toString(), messageId: held.held.messageId },
        "the stream's last message is no commit of this log (another deployment's stream?): re-publishing relies on the duplicate window alone",
      );
    }
  }

  /** Commits the projection parked are not shown by the read models: nothing to announce for them. */
  private async parkedPositions(): Promise<ReadonlySet<bigint>> {
    return new Set((await this.reads.parkedEvents(FILTERS_PROJECTION)).map((e) => e.position));
  }

  private moved(position: bigint): void {
    this.position = position;
    this.waiters.settle(position);
  }

  /** Stores the checkpoint, never past what the transport confirmed. */
  private async persist(): Promise<void> {
    if (this.position === this.stored) return;
    const position = this.position;
    await this.reads.markAnnounced(this.channel, position);
    this.stored = position;
  }

  /** A step threw: look at what the transport holds before publishing again, and keep what was confirmed. */
  private async failed(error: unknown, failures: number, log: boolean): Promise<void> {
    this.unsure = true;
    this.observer.failed(this.channel);
    if (log)
      this.logger.warn(
        { err: error, position: this.position?.toString() ?? null, failures },
        'announcements wait: the transport or a store did not take them; retrying',
      );
    await this.persist().catch(() => {});
  }
}
