/** The last event hash seen of a stream, at a revision. */
export interface StreamHead {
  readonly revision: bigint;
  readonly hash: string;
}

/**
 * The latest event hash of the streams met lately, for walks of the whole log in position order (the
 * chain migration, `verify`). Bounded: past `capacity` streams the one met longest ago is forgotten and
 * the walk asks the store instead, so memory stays flat however many streams the log holds.
 */
export class StreamHeads {
  private readonly heads = new Map<string, StreamHead>();

  constructor(private readonly capacity = 100_000) {}

  get(stream: string): StreamHead | undefined {
    return this.heads.get(stream);
  }

  set(stream: string, head: StreamHead): void {
    // Deleted first, so the stream moves to the young end of the Map's insertion order.
    this.heads.delete(stream);
    this.heads.set(stream, head);
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value!);
  }
}
