import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore } from '../../events/event-store.ts';
import { fillGeneration, type FillProgress } from '../runtime/fill-generation.ts';
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
  const fill = async () => {
    const from = process.hrtime.bigint();
    const before = applied;
    const upTo = await reads.checkpoint(FILTERS_PROJECTION);
    applied += await fillGeneration(events, target, upTo, { onProgress: (p) => options.onProgress?.({ ...p, events: before + p.events }) });
    filling += process.hrtime.bigint() - from;
  };
  // The second pass takes in what the live projector did during the first, so the handover is short.
  await fill();
  await fill();
  await reads.markPending(generation);
  const report = (swappedBy: RebuildReport['swappedBy']): RebuildReport => ({
    generation,
    events: applied,
    fillSeconds: Number(filling) / 1e9,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    swappedBy,
  });
  const owner = `rebuild:${process.pid}:${randomUUID().slice(0, 8)}`;
  const deadline = Date.now() + options.handoverTimeoutMs;
  for (;;) {
    if ((await reads.currentGeneration()) === generation) return report('projector');
    if ((await reads.pendingGeneration()) !== generation) throw new RebuildError('another rebuild replaced this one before it was swapped in');
    if (await reads.tryLease(FILTERS_LEASE, owner, options.leaseMs)) {
      try {
        await fill();
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
