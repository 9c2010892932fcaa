import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const RESOLUTION_MS = 5;

/** Two of the monitor's samples: its first only marks a start, and a stall is recorded by the sample after it. */
const twoSamples = async () => {
  for (let i = 0; i < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, RESOLUTION_MS + 1));
};

/**
 * The longest the event loop stood still while it ran: a timer every 5 ms measures how late it fires, so a
 * synchronous wait (SQLite's busy timeout, a long DELETE) shows as its length, not as a slow answer.
 */
export class LoopStall {
  private constructor(private readonly histogram: IntervalHistogram) {}

  /** Resolves once the monitor is measuring (its first sample only marks when it ran; a reset would start over). */
  static async start(): Promise<LoopStall> {
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    await twoSamples();
    return new LoopStall(histogram);
  }

  /** The worst delay seen, in milliseconds, once a stall that has just ended is recorded too; the monitor stops. */
  async stop(): Promise<number> {
    await twoSamples();
    this.histogram.disable();
    return this.histogram.max / 1e6;
  }
}
