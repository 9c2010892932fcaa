import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * The longest the event loop stood still while it ran: a timer every 5 ms measures how late it fires, so a
 * synchronous wait (SQLite's busy timeout, a long DELETE) shows as its length, not as a slow answer.
 */
export class LoopStall {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 5 });

  constructor() {
    this.histogram.enable();
  }

  /** The worst delay seen, in milliseconds; the monitor stops. */
  stop(): number {
    this.histogram.disable();
    return this.histogram.max / 1e6;
  }
}
