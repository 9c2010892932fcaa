import { setTimeout as delay } from 'node:timers/promises';
import type { CatchUp } from './read-your-writes.ts';
import { FILTERS_PROJECTION } from './filter-projector.ts';
import type { ReadStore } from '../stores/read-store.ts';

/** Short enough to add little to a write's latency, long enough to cost the read store nothing. */
const POLL_MS = 10;

/**
 * Read-your-writes for a process that does not project: the projector runs elsewhere, so wait until the
 * stored checkpoint (which every process shares) passes the append, checking it at a short interval.
 */
export class CheckpointCatchUp implements CatchUp {
  constructor(
    private readonly reads: ReadStore,
    private readonly pollMs = POLL_MS,
  ) {}

  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const checkpoint = await this.reads.checkpoint(FILTERS_PROJECTION);
      if (checkpoint !== null && checkpoint >= position) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await delay(Math.min(this.pollMs, left));
    }
  }
}
