import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore } from '../../events/event-store.ts';
import { announcementChannels } from '../../notifications/fan-out-notifier.ts';
import type { Notifier } from '../../notifications/notifier.ts';
import type { Logger } from '../../shared/logger.ts';
import { Announcer, type AnnouncerObserver } from '../announcer/announcer.ts';
import { MASTODON_PROJECTION } from '../mastodon/mastodon-filter-rows.ts';
import type { AnnouncedPositions } from '../stores/announced-positions.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';
import type { ProjectionTarget, ReadStore } from '../stores/read-store.ts';
import { fillGeneration } from './fill-generation.ts';
import { FILTERS_PROJECTION, FilterProjector } from './filter-projector.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import type { RunnerPolicy, StepFailure } from './projection-runner.ts';
import { ReadYourWrites } from './read-your-writes.ts';

/** What the work asks of the lease it runs under. */
export interface Tenure {
  /** False once the lease may have expired: nothing is started or announced then. */
  holdsLease(): boolean;
  /** True once the process is stopping: no work is taken up any more. */
  readonly stopping: boolean;
  /** The store as this tenure writes it: with the lease's fencing token, where the store issues one. */
  fenced<S extends ReadStore & Partial<AnnouncedPositions>>(store: S): S;
}

export interface LeaderWorkOptions {
  readonly logger: Logger;
  readonly owner: string;
  readonly observer?: ProjectionObserver;
  readonly announcerObserver?: AnnouncerObserver;
  readonly policy?: RunnerPolicy;
  /** Mastodon mode: Mastodon's filter tables, kept by a second projector with a checkpoint of its own. */
  readonly mastodonTables?: ProjectionTarget;
}

/** Where the projection into Mastodon's tables stands in this process, while it runs here. */
export interface MastodonProjectionState {
  readonly checkpoint: bigint | null;
  readonly failure: StepFailure | null;
}

/**
 * What the holder of the projector lease does: swaps in a generation that a rebuild marked pending,
 * then runs the filter projector, an announcer per transport and, in Mastodon mode, the projection into
 * Mastodon's tables, until told to stop (the lease lost, given up or taken anew). Whether the lease is
 * held is the lease keeper's (leased-projector.ts); this asks it through `Tenure`.
 */
export class LeaderWork {
  private projector: FilterProjector | null = null;
  private mastodon: FilterProjector | null = null;
  /** Starting the Mastodon projector, tried again until Mastodon's database answers. */
  private mastodonStarting: Promise<void> = Promise.resolve();
  private mastodonStartFailure: StepFailure | null = null;
  private announcing: Announcer[] = [];

  constructor(
    private readonly events: EventStore,
    private readonly reads: ManagedReadStore,
    private readonly notifier: Notifier,
    /** Told by the projector while it runs here; reads the shared checkpoint while it does not. */
    private readonly caughtUp: ReadYourWrites,
    private readonly tenure: Tenure,
    private readonly options: LeaderWorkOptions,
  ) {}

  /** True from taking up the work until it is stopped. */
  get isRunning(): boolean {
    return this.projector !== null;
  }

  get failure(): StepFailure | null {
    return this.projector?.failure ?? null;
  }

  get mastodonProjection(): MastodonProjectionState | null {
    const projector = this.mastodon;
    return projector && { checkpoint: projector.checkpoint, failure: projector.failure ?? this.mastodonStartFailure };
  }

  mastodonCaughtUp(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.mastodon?.waitFor(position, timeoutMs) ?? Promise.resolve(false);
  }

  get announcers(): readonly Announcer[] {
    return this.announcing;
  }

  async announced(position: bigint): Promise<void> {
    await Promise.all(this.announcing.map((announcer) => announcer.announced(position)));
  }

  /** While holding the lease: swap in a pending generation, then make sure the projector runs. */
  async takeUp(): Promise<void> {
    try {
      const pending = await this.reads.pendingGeneration();
      if (pending !== null) await this.swapIn(pending);
      if (!this.projector && this.tenure.holdsLease() && !this.tenure.stopping) await this.startAll();
    } catch (error) {
      this.options.logger.error({ err: error }, 'projector could not take up its work; retrying at the next renewal');
    }
  }

  /** Stops the announcers, then the projectors, each after its current step. */
  async stop(): Promise<void> {
    const projector = this.projector;
    const announcers = this.announcing;
    const mastodon = this.mastodon;
    this.projector = null;
    this.mastodon = null;
    this.announcing = [];
    await this.mastodonStarting;
    this.mastodonStartFailure = null;
    await Promise.all(announcers.map((announcer) => announcer.stop()));
    await Promise.all([projector?.stop(), mastodon?.stop()]);
  }

  private async startAll(): Promise<void> {
    const { logger, observer = ignoreProjection, policy, mastodonTables } = this.options;
    const writes = this.tenure.fenced(this.reads);
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
          mayAnnounce: () => this.tenure.holdsLease(),
          ...(this.options.announcerObserver ? { observer: this.options.announcerObserver } : {}),
          ...(mastodonTables && notifier.channel === 'redis' ? { readableUpTo: mastodonReadable } : {}),
        }),
    );
    const onStored = () => announcers.forEach((announcer) => announcer.poke());
    if (mastodonTables)
      mastodon = new FilterProjector(this.events, mastodonTables, {
        logger: logger.child({ component: 'mastodon-projector' }),
        observer,
        onStored,
        projection: MASTODON_PROJECTION,
        readYourWrites: new ReadYourWrites(mastodonTables),
        ...(policy ? { policy } : {}),
      });
    const projector = new FilterProjector(this.events, writes, { logger, observer, onStored, readYourWrites: this.caughtUp, ...(policy ? { policy } : {}) });
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
    this.announcing = announcers;
    logger.info({ owner: this.options.owner, checkpoint: projector.checkpoint?.toString() ?? null }, 'projector lease taken; projecting');
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
    await this.stop();
    const upTo = await this.reads.checkpoint(FILTERS_PROJECTION);
    // Fenced too: a former holder still filling must not write into what its successor swaps in.
    const caughtUp = await fillGeneration(this.events, this.tenure.fenced(this.reads.generation(generation)), upTo, {
      logger: this.options.logger,
      ...(this.options.observer ? { observer: this.options.observer } : {}),
    });
    const swapped = await this.reads.swapIn(generation);
    this.caughtUp.changed();
    this.options.logger.info({ generation, caughtUp, swapped }, swapped ? 'rebuilt read models swapped in' : 'pending generation was replaced meanwhile');
  }
}
