import type { CatchUp } from './read-your-writes.ts';
import { FILTERS_PROJECTION } from './filter-projector.ts';
import type { ReadStore } from '../stores/read-store.ts';
import type { LocalProgress } from './local-progress.ts';

/** Only for a store that cannot say when it changed (MongoDB): how often the checkpoint is read then. */
const POLL_MS = 10;

/**
 * Read-your-writes for a process that does not project: the projector runs elsewhere, so wait until the
 * stored checkpoint (which every process shares) passes the append. The checkpoint is read again each
 * time the store says another process committed (at once, no timer), or, where it cannot say, every
 * few milliseconds, and each time this process's own projector tells `local` it moved.
 */
export class CheckpointCatchUp implements CatchUp {
  constructor(
    private readonly reads: ReadStore,
    private readonly pollMs = POLL_MS,
    /** This process's own projector, whose commits the store does not report as changes. */
    private readonly local?: LocalProgress,
  ) {}

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const passed = async () => {
      const checkpoint = await this.reads.checkpoint(FILTERS_PROJECTION);
      return checkpoint !== null && checkpoint >= position;
    };
    return new Promise<boolean>((resolve, reject) => {
      let settled = false;
      const settle = (caughtUp: boolean | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stop();
        if (caughtUp instanceof Error) reject(caughtUp);
        else resolve(caughtUp);
      };
      const check = () =>
        void passed().then(
          (caughtUp) => caughtUp && settle(true),
          (error: unknown) => settle(error instanceof Error ? error : new Error(String(error))),
        );
      // Listening starts before the first look, so a commit in between is not missed.
      const stopStore = this.reads.onChange ? this.reads.onChange(check) : this.poll(check);
      const stopLocal = this.local?.listen(check);
      const stop = () => {
        stopStore();
        stopLocal?.();
      };
      const timer = setTimeout(() => settle(false), timeoutMs);
      check();
    });
  }

  private poll(check: () => void): () => void {
    const poller = setInterval(check, this.pollMs);
    return () => clearInterval(poller);
  }
}
