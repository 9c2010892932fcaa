import { Collection } from 'mongodb';

/**
 * Holds the next bulk write of the read models (the first write after a batch read its stored revisions)
 * until `release`: projector A paused between reading and writing, as a GC pause or a stopped VM would.
 */
export function pauseNextBulkWrite(): { paused: Promise<void>; release: () => void; restore: () => void } {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back unchanged by restore(), and called with its own `this`
  const original = Collection.prototype.bulkWrite;
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let used = false;
  Collection.prototype.bulkWrite = async function (this: Collection, ...args: Parameters<typeof original>) {
    if (!used) {
      used = true;
      reached();
      await gate;
    }
    return original.apply(this, args);
  };
  return { paused, release, restore: () => (Collection.prototype.bulkWrite = original) };
}
