import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore } from '../../events/event-store.ts';
import { announcementChannels } from '../../notifications/fan-out-notifier.ts';
import type { Notifier } from '../../notifications/notifier.ts';
import type { Logger } from '../../shared/logger.ts';
import { isDeadPredecessor, newOwner, retireOwner } from '../../shared/process-identity.ts';
import { Announcer, type AnnouncerObserver } from '../announcer/announcer.ts';
import type { AnnouncedPositions } from '../stores/announced-positions.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import type { ReadStore } from '../stores/read-store.ts';
import { fencedReadStore } from './fenced-read-store.ts';
import { fillGeneration } from './fill-generation.ts';
import { FILTERS_PROJECTION, FilterProjector } from './filter-projector.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import type { RunnerPolicy, StepFailure } from './projection-runner.ts';
import type { ProjectionTarget } from '../stores/read-store.ts';
import { MASTODON_PROJECTION } from '../mastodon/mastodon-filter-rows.ts';
import { ReadYourWrites, type CatchUp } from './read-your-writes.ts';

export const FILTERS_LEASE = `projector:${FILTERS_PROJECTION}`;

/** Announcing this close to the lease's end risks a successor announcing the same commit. */
const LEASE_SAFETY_MARGIN = 0.2;

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

/** Where the projection into Mastodon's tables stands in this process, while it runs here. */
export interface MastodonProjectionState {
  readonly checkpoint: bigint | null;
  readonly failure: StepFailure | null;
}

/**
 * Runs the filter projector, and an announcer per transport, only while this process holds the projector
 * lease, renewing it every third of its duration. Losing the lease (a renewal refused or failing) stops
 * projecting and announcing after the current step; nothing is published once the lease may have
 * expired, so the lease holder is the one that announces. A lease held by a dead process on this host (a crashed predecessor) is taken over at once
 * instead of waited out. The lease holder also swaps in a generation that a rebuild marked pending.
 */
export class LeasedProjector implements CatchUp {
  readonly owner: string;
  private projector: FilterProjector | null = null;
  private mastodon: FilterProjector | null = null;
  /** Starting the Mastodon projector, tried again until Mastodon's database answers. */
  private mastodonStarting: Promise<void> = Promise.resolve();
  private mastodonStartFailure: StepFailure | null = null;
  private running: Announcer[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private leading: Promise<void> | null = null;
  private validUntil = 0;
  /** The fencing token the running projector and announcers write with; null when the store issues none. */
  private fence: number | null = null;
  private stopped = false;
  /** Told by the projector while it runs here; reads the shared checkpoint while it does not. */
  private readonly caughtUp: ReadYourWrites;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ManagedReadStore,
    private readonly notifier: Notifier,
    private readonly options: LeasedProjectorOptions,
  ) {
    this.owner = options.owner ?? newOwner();
    this.caughtUp = new ReadYourWrites(reads);
  }

  /** True while this process projects: from taking the lease until it is lost, given up or stopped. */
  get isLeader(): boolean {
    return this.projector !== null;
  }

  /** Why projection is stuck here, while this process projects and its last step failed. */
  get failure(): StepFailure | null {
    return this.projector?.failure ?? null;
  }

  /** Mastodon mode, while this process projects: the projection into Mastodon's tables. */
  get mastodonProjection(): MastodonProjectionState | null {
    const projector = this.mastodon;
    return projector && { checkpoint: projector.checkpoint, failure: projector.failure ?? this.mastodonStartFailure };
  }

  /** Resolves true once Mastodon's tables hold everything up to `position` (false: not within `timeoutMs`, or not projected here). */
  mastodonCaughtUp(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.mastodon?.waitFor(position, timeoutMs) ?? Promise.resolve(false);
  }

  /** The announcers running here (one per transport), while this process holds the lease. */
  get announcers(): readonly Announcer[] {
    return this.running;
  }

  /** Resolves once every transport has announced up to `position` (or the announcers stopped). */
  async announced(position: bigint): Promise<void> {
    await Promise.all(this.running.map((announcer) => announcer.announced(position)));
  }

  /** Resolves once the lease was asked for and, if it was granted, the projector runs. */
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

  /** Finishes the current projection step, then gives the lease up so a successor starts at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    await this.leading;
    await this.stopProjector();
    try {
      await this.reads.releaseLease(FILTERS_LEASE, this.owner);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not release the projector lease; it will expire');
    }
    retireOwner(this.owner);
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.caughtUp.waitFor(position, timeoutMs);
  }

  /** Renews (or asks for) the lease and acts on the answer, up to the projector running when it is held. */
  async renew(): Promise<void> {
    await this.tick();
    await this.leading;
  }

  /** What the timer runs every third of the lease: it never waits for a swap or a start to finish. */
  private tick(): Promise<void> {
    this.ticking ??= this.renewAndAct().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async renewAndAct(): Promise<void> {
    if (this.stopped) return;
    const askedAt = this.now();
    let held: boolean;
    let fence: number | null = null;
    try {
      held = (await this.reads.tryLease(FILTERS_LEASE, this.owner, this.options.leaseMs)) || (await this.takeOverFromDeadPredecessor());
      if (held) {
        const holder = await this.reads.leaseHolder(FILTERS_LEASE);
        // Taken from us between the two calls: not ours after all.
        held = holder?.owner === this.owner;
        fence = holder?.fence ?? null;
      }
    } catch (error) {
      held = false;
      this.options.logger.warn({ err: error }, 'could not renew the projector lease');
    }
    if (held && this.projector && fence !== this.fence) {
      // Lost and taken again meanwhile: what runs writes with the old token, which the store refuses.
      this.options.logger.warn({ owner: this.owner, fence, was: this.fence }, 'projector lease taken anew; restarting projection');
      await this.stopProjector();
    }
    if (held) {
      this.fence = fence;
      this.validUntil = askedAt + this.options.leaseMs * (1 - LEASE_SAFETY_MARGIN);
      // Not awaited: renewals must go on while a swap catches a large generation up.
      this.leading ??= this.lead().finally(() => (this.leading = null));
    } else if (this.projector) {
      this.validUntil = 0;
      this.options.logger.warn({ owner: this.owner }, 'projector lease lost; stopping projection');
      await this.stopProjector();
    }
  }

  /**
   * A renewal that gets no answer (the store cut off by the network) neither fails nor succeeds until TCP
   * gives up, minutes later: once the lease may have run out, stop projecting and claiming to lead without
   * waiting for it. What the stopped step still has in flight is refused by the fence when it arrives.
   */
  private expireUnrenewed(): void {
    if (!this.projector || this.holdsLease()) return;
    this.options.logger.warn({ owner: this.owner }, 'projector lease renewal unanswered until the lease may have expired; stopping projection');
    void this.stopProjector();
  }

  /** A process killed on this host cannot renew or give back its lease: waiting for it to expire helps nobody. */
  private async takeOverFromDeadPredecessor(): Promise<boolean> {
    const holder = await this.reads.leaseHolder(FILTERS_LEASE);
    if (!holder || !isDeadPredecessor(holder.owner)) return false;
    const taken = await this.reads.takeOverLease(FILTERS_LEASE, holder.owner, this.owner, this.options.leaseMs);
    if (taken) this.options.logger.info({ owner: this.owner, predecessor: holder.owner }, 'took the projector lease over from a dead process on this host');
    return taken;
  }

  /** While holding the lease: swap in a pending generation, then make sure the projector runs. */
  private async lead(): Promise<void> {
    try {
      const pending = await this.reads.pendingGeneration();
      if (pending !== null) await this.swapIn(pending);
      if (!this.projector && this.holdsLease() && !this.stopped) {
        const { logger, observer = ignoreProjection, policy } = this.options;
        const writes = this.fenced(this.reads);
        let mastodon: FilterProjector | null = null;
        // CustomFilter#invalidate_cache! publishes after commit: Mastodon's streaming server refetches from its tables at once.
        const mastodonReadable = async (): Promise<bigint | null> => {
          const [models, tables] = [await writes.checkpoint(FILTERS_PROJECTION), mastodon?.checkpoint ?? null];
          return models === null || tables === null ? null : models < tables ? models : tables;
        };
        const announcers = announcementChannels(this.notifier).map(
          (notifier) =>
            new Announcer(this.events, writes, notifier, {
              logger,
              mayAnnounce: () => this.holdsLease(),
              ...(this.options.announcerObserver ? { observer: this.options.announcerObserver } : {}),
              ...(this.options.mastodonTables && notifier.channel === 'redis' ? { readableUpTo: mastodonReadable } : {}),
            }),
        );
        const onStored = () => announcers.forEach((announcer) => announcer.poke());
        if (this.options.mastodonTables)
          mastodon = new FilterProjector(this.events, this.options.mastodonTables, {
            logger: logger.child({ component: 'mastodon-projector' }),
            observer,
            onStored,
            projection: MASTODON_PROJECTION,
            readYourWrites: new ReadYourWrites(this.options.mastodonTables),
            ...(policy ? { policy } : {}),
          });
        const projector = new FilterProjector(this.events, writes, {
          logger,
          observer,
          onStored,
          readYourWrites: this.caughtUp,
          ...(policy ? { policy } : {}),
        });
        // Announcers first: one that never ran starts where the read models stand, before the projector moves them.
        try {
          await Promise.all(announcers.map((announcer) => announcer.start()));
          await projector.start();
        } catch (error) {
          await Promise.all(announcers.map((announcer) => announcer.stop()));
          throw error;
        }
        this.projector = projector;
        this.mastodon = mastodon;
        // Not awaited: the read models and the other announcers must not wait for Mastodon's database.
        if (mastodon) this.mastodonStarting = this.keepStarting(mastodon);
        this.running = announcers;
        logger.info({ owner: this.owner, checkpoint: projector.checkpoint?.toString() ?? null }, 'projector lease taken; projecting');
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'projector could not take up its work; retrying at the next renewal');
    }
  }

  /** Starts the Mastodon projector, retrying with back-off while its database does not answer. */
  private async keepStarting(projector: FilterProjector): Promise<void> {
    for (let failures = 1; this.mastodon === projector; failures += 1) {
      try {
        await projector.start();
        this.mastodonStartFailure = null;
        return;
      } catch (error) {
        const since = this.mastodonStartFailure?.since ?? new Date().toISOString();
        this.mastodonStartFailure = { stage: 'read', position: null, error: String(error), failures, since };
        if (failures === 1) this.options.logger.error({ err: error }, "the projection into Mastodon's tables cannot start; retrying");
        await delay(Math.min(2000, 100 * 2 ** (failures - 1)));
      }
    }
  }

  private async swapIn(generation: number): Promise<void> {
    await this.stopProjector();
    const upTo = await this.reads.checkpoint(FILTERS_PROJECTION);
    // Fenced too: a former holder still filling must not write into what its successor swaps in.
    const caughtUp = await fillGeneration(this.events, this.fenced(this.reads.generation(generation)), upTo, {
      logger: this.options.logger,
      ...(this.options.observer ? { observer: this.options.observer } : {}),
    });
    const swapped = await this.reads.swapIn(generation);
    this.caughtUp.changed();
    this.options.logger.info({ generation, caughtUp, swapped }, swapped ? 'rebuilt read models swapped in' : 'pending generation was replaced meanwhile');
  }

  private holdsLease(): boolean {
    return this.now() < this.validUntil;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The store as this tenure writes it: with the lease's fencing token, where the store issues one. */
  private fenced<S extends ReadStore & Partial<AnnouncedPositions>>(store: S): S {
    if (this.fence === null) return store;
    const fence = { lease: FILTERS_LEASE, token: this.fence };
    return fencedReadStore(store, fence, (error) => {
      this.options.onFencedOff?.();
      this.options.logger.warn(
        { owner: this.owner, fence: fence.token, current: error.current },
        'projector write refused: a successor holds the lease; stopping',
      );
      this.validUntil = 0;
      // Not awaited: the refused write is inside the step that stopping waits for.
      void this.stopProjector();
    });
  }

  private async stopProjector(): Promise<void> {
    const projector = this.projector;
    const announcers = this.running;
    const mastodon = this.mastodon;
    this.projector = null;
    this.mastodon = null;
    this.running = [];
    await this.mastodonStarting;
    this.mastodonStartFailure = null;
    await Promise.all(announcers.map((announcer) => announcer.stop()));
    await Promise.all([projector?.stop(), mastodon?.stop()]);
  }
}
