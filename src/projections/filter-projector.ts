import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from '../events/event-store.ts';
import type { EventMetadata } from '../events/filter-events.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { silentLogger, type Logger } from '../shared/logger.ts';
import type { CatchUp } from './catch-up.ts';
import { projectRecorded } from './project-recorded.ts';
import type { ReadStore } from './read-store.ts';

export const FILTERS_PROJECTION = 'filters';

const BATCH_SIZE = 256;
/** A safety net only: appends normally wake the loop at once through `onAppend`. */
const IDLE_RECHECK_MS = 1000;
const RETRY_AFTER_FAILURE_MS = 500;

interface Waiter {
  readonly position: bigint;
  readonly resolve: (caughtUp: boolean) => void;
}

const endsCommit = (metadata: unknown): boolean => {
  const m = metadata as Partial<EventMetadata> | null;
  return typeof m?.commitIndex !== 'number' || m.commitIndex === (m.commitSize ?? 1) - 1;
};

/**
 * Reads the global log from its stored checkpoint, one event at a time, and for each: folds it into the
 * v2 view, stores view + v1 records + checkpoint in one step, then (once per commit) announces the change.
 * A crash between storing and announcing can lose an announcement but never a read-model change.
 */
export class FilterProjector implements CatchUp {
  private position: bigint | null = null;
  private waiters: Waiter[] = [];
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private poked = false;
  private wakeLoop: (() => void) | undefined;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly notifier: Notifier,
    private readonly logger: Logger = silentLogger,
    private readonly onAnnounceFailure: (error: unknown) => void = () => {},
  ) {}

  get checkpoint(): bigint | null {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.position = await this.reads.checkpoint(FILTERS_PROJECTION);
    this.running = true;
    this.stopListening = this.events.onAppend(() => this.poke());
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopListening?.();
    this.poke();
    await this.loopDone;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position !== null && this.position >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter: Waiter = {
        position,
        resolve: (caughtUp) => {
          clearTimeout(timer);
          resolve(caughtUp);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private poke(): void {
    this.poked = true;
    this.wakeLoop?.();
  }

  private async idle(): Promise<void> {
    if (this.poked) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, IDLE_RECHECK_MS);
      this.wakeLoop = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeLoop = undefined;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.poked = false;
      try {
        const batch = await this.events.readAll({ after: this.position, limit: BATCH_SIZE });
        if (batch.length === 0) {
          await this.idle();
          continue;
        }
        for (const event of batch) {
          if (!this.running) return;
          await this.apply(event);
          this.passed(event.position);
        }
      } catch (error) {
        this.logger.error({ err: error, position: this.position?.toString() }, 'projection step failed; retrying');
        await delay(RETRY_AFTER_FAILURE_MS);
      }
    }
  }

  private async apply(recorded: RecordedEvent): Promise<void> {
    const view = await projectRecorded(this.reads, FILTERS_PROJECTION, recorded, this.logger);
    if (view && endsCommit(recorded.metadata)) await this.announce(view.accountId);
  }

  private async announce(accountId: string): Promise<void> {
    try {
      await this.notifier.filtersChanged(accountId);
    } catch (error) {
      this.onAnnounceFailure(error);
      this.logger.warn({ err: error, accountId }, 'could not announce filters_changed');
    }
  }

  private passed(position: bigint): void {
    this.position = position;
    const ready = this.waiters.filter((w) => w.position <= position);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve(true);
  }
}
