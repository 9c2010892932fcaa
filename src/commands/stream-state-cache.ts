import { BoundedCache } from '../shared/bounded-cache.ts';

/** A stream's state as folded up to and including `revision`. */
export interface CachedState<State> {
  readonly revision: bigint;
  readonly state: State;
}

export interface StreamStateCacheOptions<State> {
  /** Roughly how much memory a state holds, in any unit; the cache keeps at most `maxWeight` of it. */
  readonly weigh?: (state: State) => number;
  readonly maxWeight?: number;
}

/**
 * Folded states of recently written streams, so a command reads only the events appended after the
 * cached revision instead of the whole stream. It never needs invalidating: whatever another request or
 * process appended comes back from that read, and an append still checks the revision it was folded at.
 * States are shared, so deciders must treat them as immutable (they do: evolve returns new objects).
 * Bounded by weight, not count: a stream's state can be large (a filter with thousands of keywords).
 */
export class StreamStateCache<State> {
  private readonly states: BoundedCache<string, CachedState<State>>;
  private readonly weigh: (state: State) => number;
  private readonly maxWeight: number;

  constructor({ weigh = () => 1, maxWeight = 10_000 }: StreamStateCacheOptions<State> = {}) {
    if (!Number.isInteger(maxWeight) || maxWeight < 1) throw new RangeError('maxWeight must be a positive integer');
    this.states = new BoundedCache({ entries: Infinity, weight: maxWeight });
    this.weigh = weigh;
    this.maxWeight = maxWeight;
  }

  get(streamName: string): CachedState<State> | undefined {
    return this.states.get(streamName);
  }

  /** Keeps the state unless one at a later revision is already kept (a slower request finishing last). */
  remember(streamName: string, revision: bigint, state: State): void {
    const kept = this.states.peek(streamName);
    if (kept && kept.revision > revision) return;
    const weight = Math.max(1, this.weigh(state));
    // One state heavier than the whole bound would push out everything else and still not fit.
    if (weight > this.maxWeight) this.states.delete(streamName);
    else this.states.set(streamName, { revision, state }, weight);
  }

  /** Streams kept, and their total weight. */
  get size(): { readonly streams: number; readonly weight: number } {
    return { streams: this.states.size, weight: this.states.weight };
  }
}
