import type { ReadStore } from '../stores/read-store.ts';
import { FILTERS_PROJECTION } from './projection-name.ts';
import { PositionWaiters } from './position-waiters.ts';

/** Read-your-writes: resolves true once the read models have passed `position`, false on time-out; never rejects. */
export interface CatchUp {
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
}

/** How often the stored checkpoint is read where the store cannot say when it changed (MongoDB), or after a failed read. */
const POLL_MS = 10;

/**
 * The one read-your-writes mechanism of a process. While this process's own projector runs, it tells
 * `passed` each checkpoint it stored, and waits end on that without reading the store. Otherwise (the
 * projector runs elsewhere, or this one stopped, lost its lease or swaps a generation in) the stored
 * checkpoint, which every process shares, decides: read again each time the store says another
 * connection committed (at once, no timer), each time `changed` is called (a store hears of other
 * connections' commits, never of its own), or, where the store cannot say, every few milliseconds. One
 * read serves every waiter. A failed read is tried again a few milliseconds later, never passed on: the
 * write being waited for has committed, so its answer must not become an error that a client retries
 * into a second filter.
 */
export class ReadYourWrites implements CatchUp {
  private readonly waiters = new PositionWaiters();
  /** The highest checkpoint known to be stored: the read models never go back from it. */
  private passedAt: bigint | null = null;
  private projecting = false;
  private reading = false;
  private readAgain = false;
  private retry: NodeJS.Timeout | undefined;
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly reads: Pick<ReadStore, 'checkpoint' | 'onChange'>,
    private readonly pollMs = POLL_MS,
  ) {}

  /** This process's projector started (from `position`) or stopped: while it runs, the store is not read. */
  setProjecting(projecting: boolean, position: bigint | null = null): void {
    this.projecting = projecting;
    if (position !== null) this.passed(position);
    this.watch();
  }

  /** This process's projector stored up to `position`. */
  passed(position: bigint): void {
    this.settle(position);
  }

  /** This process changed the read models without a position of its own to tell (a generation swapped in). */
  changed(): void {
    this.read();
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.passedAt !== null && this.passedAt >= position) return Promise.resolve(true);
    const caughtUp = this.waiters.wait(position, timeoutMs, () => this.watch());
    // Listening starts before the first look, so a commit in between is not missed.
    this.watch();
    this.read();
    return caughtUp;
  }

  private settle(position: bigint): void {
    if (this.passedAt === null || position > this.passedAt) this.passedAt = position;
    if (this.waiters.settle(position) > 0) this.watch();
  }

  /** Listens to the store exactly while someone waits on it. */
  private watch(): void {
    const needed = !this.projecting && this.waiters.size > 0;
    if (needed && !this.stopWatching) {
      if (this.reads.onChange) {
        this.stopWatching = this.reads.onChange(() => this.read());
      } else {
        const poller = setInterval(() => this.read(), this.pollMs);
        this.stopWatching = () => clearInterval(poller);
      }
      // Stopped, or lost the lease: what this projector stored is not all that the store may hold.
      this.read();
    } else if (!needed && this.stopWatching) {
      this.stopWatching();
      this.stopWatching = undefined;
      clearTimeout(this.retry);
    }
  }

  private read(): void {
    if (this.projecting || this.waiters.size === 0) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.readAgain = false;
    this.reads.checkpoint(FILTERS_PROJECTION).then(
      (checkpoint) => {
        this.reading = false;
        if (checkpoint !== null) this.settle(checkpoint);
        if (this.readAgain) this.read();
      },
      () => {
        this.reading = false;
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.read(), this.pollMs);
      },
    );
  }
}
