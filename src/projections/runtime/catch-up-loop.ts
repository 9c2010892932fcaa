import { FailureStreak } from './failure-streak.ts';

/** What a step did, which decides what the loop does next. */
export type LoopStep =
  /** Moved: the next step follows once the event loop had a turn. */
  | { readonly kind: 'worked' }
  /** Nothing to do: wait for a poke, or `idleRecheckMs` at most. */
  | { readonly kind: 'idle' }
  /** Failed and knows its back-off: wait it out even when poked (appends do not make a failing store work). */
  | { readonly kind: 'retry'; readonly inMs: number }
  /** Done for good (a fill that reached its end): the loop ends. */
  | { readonly kind: 'finished' };

export const WORKED: LoopStep = { kind: 'worked' };
export const IDLE: LoopStep = { kind: 'idle' };
export const FINISHED: LoopStep = { kind: 'finished' };

/** Time as the loop sees it: tests drive it by hand. */
export interface LoopClock {
  now(): number;
  /** Calls `wake` after `ms`; the function returned cancels that. */
  after(ms: number, wake: () => void): () => void;
}

export const realClock: LoopClock = {
  now: () => Date.now(),
  after: (ms, wake) => {
    const timer = setTimeout(wake, ms);
    return () => clearTimeout(timer);
  },
};

/** For a step that throws: without it, a thrown step ends the loop and `done` rejects with it. */
export interface RetryThrown {
  /** Back-off after `failures` thrown steps in a row. */
  readonly delayMs: (failures: number) => number;
  /** Hears each thrown step before the back-off; `log` is false while the same streak was logged recently. */
  readonly onFailure: (error: unknown, failures: number, log: boolean) => void | Promise<void>;
}

export interface CatchUpLoopOptions {
  /** A safety net only: pokes end an idle wait at once. */
  readonly idleRecheckMs: number;
  readonly retryThrown?: RetryThrown;
  readonly clock?: LoopClock;
}

/**
 * The one catch-up loop of the runtime (projectors, announcers, a fill): runs a step again and again,
 * yielding to requests between steps that worked, waiting for a poke while idle, backing off after a
 * failure, until stopped or finished. A poke that comes during a step makes the next idle wait end at
 * once, so no wake-up is lost between a step's look and its wait.
 */
export class CatchUpLoop {
  private active = false;
  private poked = false;
  private wake: ((stopping: boolean) => void) | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly clock: LoopClock;
  private readonly streak: FailureStreak;

  constructor(
    private readonly step: () => Promise<LoopStep>,
    private readonly options: CatchUpLoopOptions,
  ) {
    this.clock = options.clock ?? realClock;
    this.streak = new FailureStreak(() => this.clock.now());
  }

  /** True from `start` until `stop` is called or the loop finished. */
  get running(): boolean {
    return this.active;
  }

  /** Settles when the loop has ended: stopped, finished, or (without `retryThrown`) a step threw. */
  get done(): Promise<void> {
    return this.loopDone;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.loopDone = this.run();
  }

  /** Something to do may have come: an idle wait ends at once; a back-off is waited out. */
  poke(): void {
    this.poked = true;
    this.wake?.(false);
  }

  /** Ends any wait at once and resolves once the step under way (if any) has finished. */
  async stop(): Promise<void> {
    this.active = false;
    this.wake?.(true);
    await this.loopDone;
  }

  private async run(): Promise<void> {
    try {
      while (this.active) {
        this.poked = false;
        const next = await this.attempt();
        if (next.kind === 'finished') return;
        if (next.kind === 'idle') await this.pause(this.options.idleRecheckMs, true);
        else if (next.kind === 'retry') await this.pause(next.inMs, false);
        // Catching up a long log is a run of steps: let requests in between them.
        else await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.active = false;
    }
  }

  private async attempt(): Promise<LoopStep> {
    const retry = this.options.retryThrown;
    if (!retry) return this.step();
    try {
      const next = await this.step();
      this.streak.succeeded();
      return next;
    } catch (error) {
      const log = this.streak.failed();
      await retry.onFailure(error, this.streak.failures, log);
      return { kind: 'retry', inMs: retry.delayMs(this.streak.failures) };
    }
  }

  /** Waits `ms`; a poke ends the wait when `wakeable`, a stop always. Returns at once if poked since the last look. */
  private async pause(ms: number, wakeable: boolean): Promise<void> {
    if (!this.active || (wakeable && this.poked)) return;
    // A retry at once still lets the event loop turn: a step that fails without I/O must not starve it.
    if (ms <= 0) return new Promise((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => {
      const cancel = this.clock.after(ms, resolve);
      this.wake = (stopping) => {
        if (!wakeable && !stopping) return;
        cancel();
        resolve();
      };
    });
    this.wake = undefined;
  }
}
