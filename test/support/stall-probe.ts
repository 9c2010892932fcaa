import { existsSync, readFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

const TICK_MS = 5;
/** Linux's time on a core of this process's main thread, in ns (the first field of its schedstat). */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const onCpuMs: (() => number) | null = existsSync(SCHEDSTAT) ? () => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6 : null;

export type ProbeFigures = {
  /**
   * The longest the event loop was held busy between two ticks of a 5 ms timer: the main thread's own
   * time on a core there (Linux schedstat; elsewhere its active time from eventLoopUtilization). Code that
   * blocks the loop shows here in full, while a loaded machine that keeps the thread waiting for a
   * core does not: a bound on it holds on a busy machine and still fails code that blocks.
   */
  readonly worstStallMs: number;
  /** The latest a tick came (monitorEventLoopDelay's view): the stall plus any wait for a core. */
  readonly worstLateTickMs: number;
  /** How far the resident set rose above where it stood at the start, sampled on every tick. */
  readonly rssGrowthMb: number;
  /** The same for the memory of this process's Buffers and ArrayBuffers (garbage not yet collected included). */
  readonly buffersGrowthMb: number;
};

/** Runs `work` while watching this process's event loop and memory. */
export async function probe<T>(work: () => Promise<T>): Promise<{ result: T; figures: ProbeFigures }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const buffersAtStart = process.memoryUsage().arrayBuffers;
  let buffersPeak = buffersAtStart;
  let worstStall = 0;
  let worstLate = 0;
  let last = performance.now();
  let cpu = onCpuMs?.() ?? 0;
  let utilization: EventLoopUtilization = performance.eventLoopUtilization();
  const look = () => {
    const now = performance.now();
    const current = performance.eventLoopUtilization();
    const busy = onCpuMs ? onCpuMs() - cpu : performance.eventLoopUtilization(current, utilization).active;
    worstStall = Math.max(worstStall, busy);
    worstLate = Math.max(worstLate, now - last - TICK_MS);
    peak = Math.max(peak, process.memoryUsage.rss());
    buffersPeak = Math.max(buffersPeak, process.memoryUsage().arrayBuffers);
    [last, utilization, cpu] = [now, current, onCpuMs?.() ?? 0];
  };
  const ticker = setInterval(look, TICK_MS);
  try {
    const result = await work();
    look();
    return {
      result,
      figures: {
        worstStallMs: worstStall,
        worstLateTickMs: Math.max(0, worstLate),
        rssGrowthMb: (peak - start) / 2 ** 20,
        buffersGrowthMb: (buffersPeak - buffersAtStart) / 2 ** 20,
      },
    };
  } finally {
    clearInterval(ticker);
  }
}
