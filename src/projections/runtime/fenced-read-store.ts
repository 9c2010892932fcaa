import { FencedOffError, type Fence } from '../../shared/fencing.ts';
import type { AnnouncedPositions } from '../stores/announced-positions.ts';
import type { Checkpoint, ProjectionBatch, ReadStore } from '../stores/read-store.ts';
import type { FilterView } from '../fold/filter-view.ts';

/**
 * The read store as one lease holder writes it: every batch and announcer checkpoint carries its fencing
 * token, so the store refuses them once a successor holds the lease. `onFencedOff` hears each refusal
 * (the holder then stops); the error still reaches the writer, which stores nothing more of that step.
 */
export function fencedReadStore<S extends ReadStore & Partial<AnnouncedPositions>>(store: S, fence: Fence, onFencedOff: (error: FencedOffError) => void): S {
  const heard = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } catch (error) {
      if (error instanceof FencedOffError) onFencedOff(error);
      throw error;
    }
  };
  const applyBatch = (batch: ProjectionBatch) => heard(store.applyBatch({ ...batch, fence }));
  const overrides: Partial<ReadStore & AnnouncedPositions> = {
    applyBatch,
    saveFilter: (view: FilterView, { projection, position }: Checkpoint) => applyBatch({ projection, position, views: [view] }),
    advanceCheckpoint: ({ projection, position }: Checkpoint) => applyBatch({ projection, position, views: [] }),
    ...(store.markAnnounced ? { markAnnounced: (channel: string, position: bigint | null) => heard(store.markAnnounced!(channel, position, fence)) } : {}),
  };
  return new Proxy(store, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof typeof overrides];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
