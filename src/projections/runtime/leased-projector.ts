import type { EventStore } from '../../events/event-store.ts';
import type { Notifier } from '../../notifications/notifier.ts';
import type { Logger } from '../../shared/logger.ts';
import { newOwner } from '../../shared/process-identity.ts';
import type { Announcer, AnnouncerObserver } from '../announcer/announcer.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import type { ProjectionTarget } from '../stores/read-store.ts';
import { LeaderWork, type MastodonProjectionState } from './leader-work.ts';
import type { ProjectionObserver } from './projection-observer.ts';
import type { RunnerPolicy, StepFailure } from './projection-runner.ts';
import { ProjectorLease } from './projector-lease.ts';
import { ReadYourWrites, type CatchUp } from './read-your-writes.ts';

export type { MastodonProjectionState } from './leader-work.ts';
export { FILTERS_LEASE } from './projector-lease.ts';

export interface LeasedProjectorOptions {
  readonly leaseMs: number;
  readonly logger: Logger;
  readonly owner?: string;
  readonly observer?: ProjectionObserver;
  readonly announcerObserver?: AnnouncerObserver;
  readonly policy?: RunnerPolicy;
  /** False: no renewal timer; the caller (a test) calls `renew()` itself. */
  readonly autoRenew?: boolean;
  /**
   * This process's clock (tests skew it). It only measures how long ago a renewal was asked for, to stop
   * before the lease may have expired; whether a lease has expired is the store's call.
   */
  readonly now?: () => number;
  /** Hears each write the store refused because a successor holds the lease (a metric counts them). */
  readonly onFencedOff?: () => void;
  /**
   * Mastodon mode: Mastodon's filter tables, kept by a second projector under the same lease, with a
   * checkpoint of their own; Mastodon's Redis channel then announces a commit only once they hold it.
   */
  readonly mastodonTables?: ProjectionTarget;
}

/**
 * The projector of a process: the lease (projector-lease.ts) and what its holder does (leader-work.ts:
 * the filter projector, an announcer per transport, a pending generation swapped in, Mastodon's tables),
 * which runs only while the lease is held, so the lease holder is the one that projects and announces.
 * Read-your-writes waits are answered here whoever projects: this process's projector while it runs
 * here, the shared checkpoint otherwise.
 */
export class LeasedProjector implements CatchUp {
  readonly owner: string;
  private readonly lease: ProjectorLease;
  private work!: LeaderWork;
  /** Told by the projector while it runs here; reads the shared checkpoint while it does not. */
  private readonly caughtUp: ReadYourWrites;

  constructor(events: EventStore, reads: ManagedReadStore, notifier: Notifier, options: LeasedProjectorOptions) {
    const { leaseMs, logger, autoRenew, now, onFencedOff, observer, announcerObserver, policy, mastodonTables } = options;
    this.owner = options.owner ?? newOwner();
    this.caughtUp = new ReadYourWrites(reads);
    const leaseOptions = {
      leaseMs,
      logger,
      owner: this.owner,
      ...(autoRenew === undefined ? {} : { autoRenew }),
      ...(now ? { now } : {}),
      ...(onFencedOff ? { onFencedOff } : {}),
    };
    this.lease = new ProjectorLease(reads, leaseOptions, (tenure) => {
      this.work = new LeaderWork(events, reads, notifier, this.caughtUp, tenure, {
        logger,
        owner: this.owner,
        ...(observer ? { observer } : {}),
        ...(announcerObserver ? { announcerObserver } : {}),
        ...(policy ? { policy } : {}),
        ...(mastodonTables ? { mastodonTables } : {}),
      });
      return this.work;
    });
  }

  /** True while this process projects: from taking the lease until it is lost, given up or stopped. */
  get isLeader(): boolean {
    return this.work.isRunning;
  }

  /** Why projection is stuck here, while this process projects and its last step failed. */
  get failure(): StepFailure | null {
    return this.work.failure;
  }

  /** Mastodon mode, while this process projects: the projection into Mastodon's tables. */
  get mastodonProjection(): MastodonProjectionState | null {
    return this.work.mastodonProjection;
  }

  /** Resolves true once Mastodon's tables hold everything up to `position` (false: not within `timeoutMs`, or not projected here). */
  mastodonCaughtUp(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.work.mastodonCaughtUp(position, timeoutMs);
  }

  /** The announcers running here (one per transport), while this process holds the lease. */
  get announcers(): readonly Announcer[] {
    return this.work.announcers;
  }

  /** Resolves once every transport has announced up to `position` (or the announcers stopped). */
  announced(position: bigint): Promise<void> {
    return this.work.announced(position);
  }

  /** Resolves once the lease was asked for and, if it was granted, the projector runs. */
  start(): Promise<void> {
    return this.lease.start();
  }

  /** Finishes the current projection step, then gives the lease up so a successor starts at once. */
  stop(): Promise<void> {
    return this.lease.stop();
  }

  /** Renews (or asks for) the lease and acts on the answer, up to the projector running when it is held. */
  renew(): Promise<void> {
    return this.lease.renew();
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.caughtUp.waitFor(position, timeoutMs);
  }
}
