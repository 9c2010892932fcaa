import type { ManagedReadStore } from '../../src/projections/stores/managed-read-store.ts';
import type { ProjectionBatch } from '../../src/projections/stores/read-store.ts';

/** Decides, before a batch is stored, whether storing it fails: throw to fail it, or wait to hold it back. */
export type BatchHook = (batch: ProjectionBatch, call: number) => void | Promise<void>;

/**
 * A read store whose batch writes go through `hook` first: tests make the projector's writes fail, fail
 * once, or wait, and see what it then does; `committed` hears each batch stored. Everything else is the real store.
 */
export function faultyReadStore(
  inner: ManagedReadStore,
  hook: BatchHook,
  committed: (batch: ProjectionBatch) => void = () => {},
): ManagedReadStore & { readonly calls: number } {
  let calls = 0;
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'calls') return calls;
      if (property === 'applyBatch') {
        return async (batch: ProjectionBatch) => {
          calls += 1;
          await hook(batch, calls);
          await target.applyBatch(batch);
          committed(batch);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as ManagedReadStore & { readonly calls: number };
}

/** A promise with its resolve function outside, for a test to decide when something may go on. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}
