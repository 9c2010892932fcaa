import type { EventStore } from '../../events/event-store.ts';
import { silentLogger, type Logger } from '../../shared/logger.ts';
import type { ProjectionTarget } from '../stores/read-store.ts';
import { ignoreProjection, type ProjectionObserver } from './projection-observer.ts';
import { DEFAULT_POLICY, ProjectionRunner, type RunnerPolicy, type StepFailure } from './projection-runner.ts';
import { FILTERS_PROJECTION } from './projection-name.ts';
import { ReadYourWrites, type CatchUp } from './read-your-writes.ts';
import { CatchUpLoop, IDLE, WORKED, type LoopStep } from './catch-up-loop.ts';

export { FILTERS_PROJECTION };

/** A safety net only: appends wake the loop at once through `onAppend`. */
const IDLE_RECHECK_MS = 1000;

export interface FilterProjectorOptions {
  readonly logger?: Logger;
  readonly observer?: ProjectionObserver;
  readonly policy?: RunnerPolicy;
  /** How long an idle projector waits for an append's wake-up before it looks at the log anyway. */
  readonly idleRecheckMs?: number;
  /** Hears each checkpoint once its batch has committed: the announcer announces up to it. */
  readonly onStored?: (position: bigint) => void;
  /** The checkpoint's name in the target: the read models' by default. */
  readonly projection?: string;
  /** Told each stored checkpoint, and whether this projector runs; by default one of its own. */
  readonly readYourWrites?: ReadYourWrites;
}

/**
 * The live projector: reads the global log from its stored checkpoint and stores each batch of events
 * (views, v1 records, checkpoint) in one read-model transaction, then tells the writers waiting for those
 * positions (through `readYourWrites`) and `onStored`. It announces nothing itself: the announcer reads
 * the log from a checkpoint of its own (announcer/announcer.ts), so no crash can lose an announcement.
 * Appends wake it at once; it never polls on a timer while work is waiting.
 */
export class FilterProjector implements CatchUp {
  private runner: ProjectionRunner | null = null;
  /** The checkpoint of the last batch stored (or the one it started from). */
  private passedAt: bigint | null = null;
  private readonly caughtUp: ReadYourWrites;
  private readonly loop: CatchUpLoop;
  private stopListening: (() => void) | undefined;
  private readonly logger: Logger;
  private readonly observer: ProjectionObserver;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ProjectionTarget,
    private readonly options: FilterProjectorOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.observer = options.observer ?? ignoreProjection;
    this.caughtUp = options.readYourWrites ?? new ReadYourWrites(reads);
    this.loop = new CatchUpLoop(() => this.step(), { idleRecheckMs: options.idleRecheckMs ?? IDLE_RECHECK_MS });
  }

  get checkpoint(): bigint | null {
    return this.passedAt;
  }

  /** Why projection is stuck, while the last step failed. */
  get failure(): StepFailure | null {
    return this.runner?.failure ?? null;
  }

  async start(): Promise<void> {
    if (this.loop.running) return;
    const projection = this.options.projection ?? FILTERS_PROJECTION;
    const position = await this.reads.checkpoint(projection);
    this.passedAt = position;
    this.runner = new ProjectionRunner(this.events, this.reads, projection, position, this.logger, this.observer, this.options.policy ?? DEFAULT_POLICY);
    this.caughtUp.setProjecting(true, position);
    this.stopListening = this.events.onAppend(() => this.loop.poke());
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopListening?.();
    await this.loop.stop();
    // Its waiters now wait on the stored checkpoint, which whoever projects next moves.
    this.caughtUp.setProjecting(false);
  }

  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return this.caughtUp.waitFor(position, timeoutMs);
  }

  private async step(): Promise<LoopStep> {
    const result = await this.runner!.step();
    if (result.kind === 'idle') return IDLE;
    if (result.kind === 'failed') return { kind: 'retry', inMs: result.retryInMs };
    this.passedAt = result.batch.position;
    this.caughtUp.passed(result.batch.position);
    this.options.onStored?.(result.batch.position);
    return WORKED;
  }
}
