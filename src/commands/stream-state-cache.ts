/** A stream's state as folded up to and including `revision`. */
export interface CachedState<State> {
  readonly revision: bigint;
  readonly state: State;
}

/** Enough for every filter an instance is likely to be editing; past it the oldest entries go first. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Folded states of recently written streams, so a command reads only the events appended after the
 * cached revision instead of the whole stream. It never needs invalidating: whatever another request or
 * process appended comes back from that read, and an append still checks the revision it was folded at.
 * States are shared, so deciders must treat them as immutable (they do: evolve returns new objects).
 */
export class StreamStateCache<State> {
  private readonly entries = new Map<string, CachedState<State>>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get(streamName: string): CachedState<State> | undefined {
    return this.entries.get(streamName);
  }

  /** Keeps the state unless one at a later revision is already kept (a slower request finishing last). */
  remember(streamName: string, revision: bigint, state: State): void {
    const kept = this.entries.get(streamName);
    if (kept && kept.revision > revision) return;
    // Re-inserting moves the stream to the young end, so eviction drops the least recently written.
    this.entries.delete(streamName);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(streamName, { revision, state });
  }

  get size(): number {
    return this.entries.size;
  }
}
