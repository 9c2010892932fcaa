import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore } from '../../events/event-store.ts';
import { END_OF_LOG, fillGeneration, type FillProgress } from '../runtime/fill-generation.ts';
import { FILTERS_PROJECTION } from '../runtime/filter-projector.ts';
import { FILTERS_LEASE } from '../runtime/leased-projector.ts';
import type { ManagedReadStore } from '../stores/managed-read-store.ts';

export interface RebuildOptions {
  readonly leaseMs: number;
  /** How long to wait for a running projector to swap the new generation in. */
  readonly handoverTimeoutMs: number;
  readonly onProgress?: (progress: FillProgress) => void;
}

export interface RebuildReport {
  readonly generation: number;
  /** Events this process projected into the new generation. */
  readonly events: number;
  /** Time spent projecting, which the events/s figure is about. */
  readonly fillSeconds: number;
  /** Everything, the wait for the handover included. */
  readonly seconds: number;
  /** Who made the new generation current: the running projector, or this process when none ran. */
  readonly swappedBy: 'projector' | 'rebuild';
}

export class RebuildError extends Error {
  override readonly name = 'RebuildError';
}

/**
 * No projector has stored a checkpoint (a log restored from a backup, or read models deleted): there is
 * no live position to stop at, so the whole log is projected. Only while this process holds the
 * projector lease, renewed during the fill: a projector that starts meanwhile waits, and one that is
 * already running (projecting the log from its start itself) is a reason to refuse, said as such.
 */
async function rebuildWholeLog(reads: ManagedReadStore, generation: number, owner: string, leaseMs: number, fill: () => Promise<void>): Promise<void> {
  if (!(await reads.tryLease(FILTERS_LEASE, owner, leaseMs))) {
    throw new RebuildError(
      'the read models hold no checkpoint and a running projector holds the projector lease: it is projecting the whole log itself; ' +
        'wait until it has caught up, or stop it and run the rebuild again',
    );
  }
  let held = true;
  const renewal = setInterval(
    () => {
      reads.tryLease(FILTERS_LEASE, owner, leaseMs).then(
        (renewed) => (held &&= renewed),
        () => (held = false),
      );
    },
    Math.max(leaseMs / 3, 10),
  );
  try {
    await fill();
    clearInterval(renewal);
    if (!held || !(await reads.tryLease(FILTERS_LEASE, owner, leaseMs))) {
      throw new RebuildError(`lost the projector lease while projecting the whole log; generation ${generation} was not swapped in`);
    }
    await reads.markPending(generation);
    if (!(await reads.swapIn(generation))) throw new RebuildError('another rebuild replaced this one before it was swapped in');
  } finally {
    clearInterval(renewal);
    await reads.releaseLease(FILTERS_LEASE, owner);
  }
}

/**
 * Rebuilds the read models from the log into a fresh generation while the current one keeps answering:
 * fills it up to the live checkpoint, marks it pending, and lets the projector lease holder catch it up
 * to its own position and swap it in. When no projector runs, this process takes the lease and swaps.
 */
export async function rebuildReadModels(events: EventStore, reads: ManagedReadStore, options: RebuildOptions): Promise<RebuildReport> {
  const started = process.hrtime.bigint();
  const generation = await reads.createGeneration();
  const target = reads.generation(generation);
  let applied = 0;
  let filling = 0n;
  const fill = async (upTo: bigint | null) => {
    const from = process.hrtime.bigint();
    const before = applied;
    applied += await fillGeneration(events, target, upTo, { onProgress: (p) => options.onProgress?.({ ...p, events: before + p.events }) });
    filling += process.hrtime.bigint() - from;
  };
  const report = (swappedBy: RebuildReport['swappedBy']): RebuildReport => ({
    generation,
    events: applied,
    fillSeconds: Number(filling) / 1e9,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    swappedBy,
  });
  const owner = `rebuild:${process.pid}:${randomUUID().slice(0, 8)}`;
  if ((await reads.checkpoint(FILTERS_PROJECTION)) === null) {
    await rebuildWholeLog(reads, generation, owner, options.leaseMs, () => fill(END_OF_LOG));
    return report('rebuild');
  }
  const fillToLiveCheckpoint = async () => fill(await reads.checkpoint(FILTERS_PROJECTION));
  // The second pass takes in what the live projector did during the first, so the handover is short.
  await fillToLiveCheckpoint();
  await fillToLiveCheckpoint();
  await reads.markPending(generation);
  const deadline = Date.now() + options.handoverTimeoutMs;
  for (;;) {
    if ((await reads.currentGeneration()) === generation) return report('projector');
    if ((await reads.pendingGeneration()) !== generation) throw new RebuildError('another rebuild replaced this one before it was swapped in');
    if (await reads.tryLease(FILTERS_LEASE, owner, options.leaseMs)) {
      try {
        await fillToLiveCheckpoint();
        if (!(await reads.swapIn(generation))) throw new RebuildError('another rebuild replaced this one before it was swapped in');
      } finally {
        await reads.releaseLease(FILTERS_LEASE, owner);
      }
      return report('rebuild');
    }
    if (Date.now() > deadline)
      throw new RebuildError(`the running projector did not swap generation ${generation} in within ${options.handoverTimeoutMs} ms; it stays pending`);
    await delay(50);
  }
}
