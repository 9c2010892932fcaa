import type { Leases } from '../../shared/leases.ts';
import type { AnnouncedPositions } from './announced-positions.ts';
import type { ReadStore } from './read-store.ts';

/**
 * At most one projector writes a read model at a time: it holds a lease that it renews well before it
 * expires. A projector that crashes stops renewing, and another one takes over once the lease expires
 * (or at once, on the same host, once it can tell the holder is dead). Worker numbers for ids are leased
 * the same way, in the same store.
 */
export type ProjectionLeases = Leases;

/**
 * Read models live in numbered generations of tables or collections. Queries always follow the current
 * generation; a rebuild fills a new one from the log, marks it pending, and the lease holder swaps it in
 * once it has caught up, so readers in every process move over in one step.
 */
export interface ReadModelGenerations {
  currentGeneration(): Promise<number>;
  pendingGeneration(): Promise<number | null>;
  /** Creates empty tables or collections for a new generation and drops those retired before the current one. */
  createGeneration(): Promise<number>;
  /** A read store bound to one generation, whatever is current: what a rebuild writes into. */
  generation(generation: number): ReadStore;
  /**
   * Creates empty tables or collections for a generation that will never be swapped in (a check of the
   * read models against the log), and drops nothing: a retired generation stays for the next rebuild to drop.
   */
  createScratchGeneration(): Promise<number>;
  /** Drops a generation's tables or collections; false, dropping nothing, for the current or pending one. */
  dropGeneration(generation: number): Promise<boolean>;
  /** Asks the lease holder to swap `generation` in; replaces any other pending generation. */
  markPending(generation: number): Promise<void>;
  /** Makes the pending `generation` current; false when another generation was marked pending since. */
  swapIn(generation: number): Promise<boolean>;
}

/** A read store that the projector process and the rebuild command can run: queries, leases, generations and the announcers' checkpoints. */
export type ManagedReadStore = ReadStore & ProjectionLeases & ReadModelGenerations & AnnouncedPositions;
