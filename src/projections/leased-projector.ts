import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EventStore } from '../events/event-store.ts';
import type { Notifier } from '../notifications/notifier.ts';
import type { Logger } from '../shared/logger.ts';
import type { CatchUp } from './catch-up.ts';
import { CheckpointCatchUp } from './checkpoint-catch-up.ts';
import { fillGeneration } from './fill-generation.ts';
import { FILTERS_PROJECTION, FilterProjector } from './filter-projector.ts';
import type { ManagedReadStore } from './read-model-admin.ts';

export const FILTERS_LEASE = `projector:${FILTERS_PROJECTION}`;

/** Announcing this close to the lease's end risks a successor announcing the same commit. */
const LEASE_SAFETY_MARGIN = 0.2;

export interface LeasedProjectorOptions {
  readonly leaseMs: number;
  readonly logger: Logger;
  readonly owner?: string;
  readonly onAnnounceFailure?: (error: unknown) => void;
}

/**
 * Runs the filter projector only while this process holds the projector lease, renewing it every third
 * of its duration. Losing the lease (a renewal refused or failing) stops projecting after the current
 * step; announcements are dropped once the lease may have expired, so two projectors never both
 * announce. The lease holder also swaps in a generation that a rebuild marked pending.
 */
export class LeasedProjector implements CatchUp {
  readonly owner: string;
  private projector: FilterProjector | null = null;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private leading: Promise<void> | null = null;
  private validUntil = 0;
  private stopped = false;
  private readonly fallback: CheckpointCatchUp;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ManagedReadStore,
    private readonly notifier: Notifier,
    private readonly options: LeasedProjectorOptions,
  ) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.fallback = new CheckpointCatchUp(reads);
  }

  /** True while this process projects: from taking the lease until it is lost, given up or stopped. */
  get isLeader(): boolean {
    return this.projector !== null;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
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
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const started = Date.now();
    if (this.projector && (await this.projector.waitFor(position, timeoutMs))) return true;
    // Not projecting here, or stopped meanwhile (lease lost, generation swap): the stored checkpoint decides.
    const left = timeoutMs - (Date.now() - started);
    return left > 0 ? this.fallback.waitFor(position, left) : false;
  }

  private tick(): Promise<void> {
    this.ticking ??= this.renewAndAct().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async renewAndAct(): Promise<void> {
    if (this.stopped) return;
    const askedAt = Date.now();
    let held = false;
    try {
      held = await this.reads.tryLease(FILTERS_LEASE, this.owner, this.options.leaseMs);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not renew the projector lease');
    }
    if (held) {
      this.validUntil = askedAt + this.options.leaseMs * (1 - LEASE_SAFETY_MARGIN);
      this.leading ??= this.lead().finally(() => (this.leading = null));
    } else if (this.projector) {
      this.validUntil = 0;
      this.options.logger.warn({ owner: this.owner }, 'projector lease lost; stopping projection');
      await this.stopProjector();
    }
  }

  /** While holding the lease: swap in a pending generation, then make sure the projector runs. */
  private async lead(): Promise<void> {
    try {
      const pending = await this.reads.pendingGeneration();
      if (pending !== null) await this.swapIn(pending);
      if (!this.projector && this.holdsLease() && !this.stopped) {
        const guarded: Notifier = {
          filtersChanged: (accountId) => this.announce(accountId),
          close: async () => {},
        };
        this.projector = new FilterProjector(this.events, this.reads, guarded, this.options.logger, this.options.onAnnounceFailure);
        await this.projector.start();
        this.options.logger.info({ owner: this.owner, checkpoint: this.projector.checkpoint?.toString() ?? null }, 'projector lease taken; projecting');
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'projector could not take up its work; retrying at the next renewal');
    }
  }

  private async swapIn(generation: number): Promise<void> {
    await this.stopProjector();
    const upTo = await this.reads.checkpoint(FILTERS_PROJECTION);
    const caughtUp = await fillGeneration(this.events, this.reads.generation(generation), upTo, undefined, this.options.logger);
    const swapped = await this.reads.swapIn(generation);
    this.options.logger.info({ generation, caughtUp, swapped }, swapped ? 'rebuilt read models swapped in' : 'pending generation was replaced meanwhile');
  }

  private async announce(accountId: string): Promise<void> {
    if (!this.holdsLease()) {
      this.options.logger.warn({ accountId }, 'filters_changed not announced: the projector lease may have expired');
      return;
    }
    await this.notifier.filtersChanged(accountId);
  }

  private holdsLease(): boolean {
    return Date.now() < this.validUntil;
  }

  private async stopProjector(): Promise<void> {
    const projector = this.projector;
    this.projector = null;
    await projector?.stop();
  }
}
