import type { Logger } from '../../shared/logger.ts';
import { isDeadPredecessor, retireOwner } from '../../shared/process-identity.ts';
import type { AnnouncedPositions } from '../stores/announced-positions.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import type { ReadStore } from '../stores/read-store.ts';
import { fencedReadStore } from './fenced-read-store.ts';
import type { Tenure } from './leader-work.ts';
import { FILTERS_PROJECTION } from './projection-name.ts';

export const FILTERS_LEASE = `projector:${FILTERS_PROJECTION}`;

/** Announcing this close to the lease's end risks a successor announcing the same commit. */
const LEASE_SAFETY_MARGIN = 0.2;

/** What runs only while the lease is held. */
export interface LeaseWork {
  readonly isRunning: boolean;
  /** Called on every renewal that found the lease held; never awaited by the renewals. */
  takeUp(): Promise<void>;
  /** Stops after the current step. */
  stop(): Promise<void>;
}

export interface ProjectorLeaseOptions {
  readonly leaseMs: number;
  readonly logger: Logger;
  readonly owner: string;
  /** False: no renewal timer; the caller (a test) calls `renew()` itself. */
  readonly autoRenew?: boolean;
  /** This process's clock: it only measures how long ago a renewal was asked for. */
  readonly now?: () => number;
  /** Hears each write the store refused because a successor holds the lease. */
  readonly onFencedOff?: () => void;
}

/**
 * The projector lease as one process holds it: asked for and renewed every third of its duration, taken
 * over at once from a dead process on this host, given up on stop. The work runs only while it is held:
 * a renewal refused or failing, a fencing token changed, or no answer until the lease may have expired
 * stops the work; `holdsLease` turns false a safety margin before the lease's end, so nothing is
 * published once a successor may hold it.
 */
export class ProjectorLease implements Tenure {
  private readonly work: LeaseWork;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private leading: Promise<void> | null = null;
  private validUntil = 0;
  /** The fencing token the running work writes with; null when the store issues none. */
  private fence: number | null = null;
  private stopped = false;

  constructor(
    private readonly reads: ManagedReadStore,
    private readonly options: ProjectorLeaseOptions,
    work: (tenure: Tenure) => LeaseWork,
  ) {
    this.work = work(this);
  }

  get stopping(): boolean {
    return this.stopped;
  }

  /** Resolves once the lease was asked for and, if it was granted, the work was taken up. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.renew();
    if (this.options.autoRenew === false) return;
    this.timer = setInterval(
      () => {
        this.expireUnrenewed();
        void this.tick();
      },
      Math.max(100, Math.floor(this.options.leaseMs / 3)),
    );
    this.timer.unref();
  }

  /** Lets the work finish its current step, then gives the lease up so a successor starts at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    await this.leading;
    await this.work.stop();
    try {
      await this.reads.releaseLease(FILTERS_LEASE, this.options.owner);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not release the projector lease; it will expire');
    }
    retireOwner(this.options.owner);
  }

  /** Renews (or asks for) the lease and acts on the answer, up to the work taken up when it is held. */
  async renew(): Promise<void> {
    await this.tick();
    await this.leading;
  }

  holdsLease(): boolean {
    return this.now() < this.validUntil;
  }

  /** The store as this tenure writes it: with the lease's fencing token, where the store issues one. */
  fenced<S extends ReadStore & Partial<AnnouncedPositions>>(store: S): S {
    if (this.fence === null) return store;
    const fence = { lease: FILTERS_LEASE, token: this.fence };
    return fencedReadStore(store, fence, (error) => {
      this.options.onFencedOff?.();
      this.options.logger.warn(
        { owner: this.options.owner, fence: fence.token, current: error.current },
        'projector write refused: a successor holds the lease; stopping',
      );
      this.validUntil = 0;
      // Not awaited: the refused write is inside the step that stopping waits for.
      void this.work.stop();
    });
  }

  /** What the timer runs every third of the lease: it never waits for a swap or a start to finish. */
  private tick(): Promise<void> {
    this.ticking ??= this.renewAndAct().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async renewAndAct(): Promise<void> {
    if (this.stopped) return;
    const { owner, leaseMs, logger } = this.options;
    const askedAt = this.now();
    let held: boolean;
    let fence: number | null = null;
    try {
      held = (await this.reads.tryLease(FILTERS_LEASE, owner, leaseMs)) || (await this.takeOverFromDeadPredecessor());
      if (held) {
        const holder = await this.reads.leaseHolder(FILTERS_LEASE);
        // Taken from us between the two calls: not ours after all.
        held = holder?.owner === owner;
        fence = holder?.fence ?? null;
      }
    } catch (error) {
      held = false;
      logger.warn({ err: error }, 'could not renew the projector lease');
    }
    if (held && this.work.isRunning && fence !== this.fence) {
      // Lost and taken again meanwhile: what runs writes with the old token, which the store refuses.
      logger.warn({ owner, fence, was: this.fence }, 'projector lease taken anew; restarting projection');
      await this.work.stop();
    }
    if (held) {
      this.fence = fence;
      this.validUntil = askedAt + leaseMs * (1 - LEASE_SAFETY_MARGIN);
      // Not awaited: renewals must go on while a swap catches a large generation up.
      this.leading ??= this.work.takeUp().finally(() => (this.leading = null));
    } else if (this.work.isRunning) {
      this.validUntil = 0;
      logger.warn({ owner }, 'projector lease lost; stopping projection');
      await this.work.stop();
    }
  }

  /**
   * A renewal that gets no answer (the store cut off by the network) neither fails nor succeeds until TCP
   * gives up, minutes later: once the lease may have run out, stop projecting and claiming to lead without
   * waiting for it. What the stopped step still has in flight is refused by the fence when it arrives.
   */
  private expireUnrenewed(): void {
    if (!this.work.isRunning || this.holdsLease()) return;
    this.options.logger.warn({ owner: this.options.owner }, 'projector lease renewal unanswered until the lease may have expired; stopping projection');
    void this.work.stop();
  }

  /** A process killed on this host cannot renew or give back its lease: waiting for it to expire helps nobody. */
  private async takeOverFromDeadPredecessor(): Promise<boolean> {
    const { owner, leaseMs, logger } = this.options;
    const holder = await this.reads.leaseHolder(FILTERS_LEASE);
    if (!holder || !isDeadPredecessor(holder.owner)) return false;
    const taken = await this.reads.takeOverLease(FILTERS_LEASE, holder.owner, owner, leaseMs);
    if (taken) logger.info({ owner, predecessor: holder.owner }, 'took the projector lease over from a dead process on this host');
    return taken;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
