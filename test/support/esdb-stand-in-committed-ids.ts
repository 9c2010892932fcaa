/**
 * The server's cache of recently committed event ids, by which it deduplicates appends made with `any`
 * or `stream_exists` (and only those): IndexWriter._committedEvents (EventStore/EventStore v24.10.0
 * src/EventStore.Core/Services/Storage/ReaderIndex/IndexWriter.cs 109-110, filled at commit, 305 and 335,
 * read at 205-215), a BoundedCache (ReaderIndex/BoundedCache.cs 52-59: the oldest ids go first once it is
 * full) of ESConsts.CommitedEventsMemCacheLimit = 8 MiB (Settings/ESConsts.cs 14), each entry costing
 * `16 + 4 + IntPtr.Size + MemSizer.SizeOf(streamId)` (Caching/MemSizer.cs 19-23). It lives in memory on
 * the node that committed: a restart or a new leader starts with it empty.
 */
export const COMMITTED_EVENTS_CACHE_BYTES = 8 * 1024 * 1024;

const POINTER = 8;
/** MemSizer.SizeOf(string): 20 + 2 bytes a UTF-16 unit + 1, rounded up to the pointer size. */
const sizeOfString = (s: string) => (s.length === 0 ? 0 : Math.ceil((20 + s.length * 2 + 1) / POINTER) * POINTER);

export interface CommittedId {
  readonly stream: string;
  readonly revision: bigint;
}

export class CommittedIds {
  private readonly entries = new Map<string, CommittedId & { readonly bytes: number }>();
  /** Ids in the order they came, as BoundedCache's queue; `head` is the oldest still held. */
  private order: string[] = [];
  private head = 0;
  private bytes = 0;

  constructor(private readonly limit = COMMITTED_EVENTS_CACHE_BYTES) {}

  get size(): number {
    return this.entries.size;
  }

  put(id: string, stream: string, revision: bigint): void {
    const bytes = 16 + 4 + POINTER + sizeOfString(stream);
    // A queue, not the Map's own order: walking a Map from its start skips every deleted slot.
    while (this.bytes + bytes > this.limit && this.head < this.order.length) {
      const oldest = this.order[this.head++]!;
      this.bytes -= this.entries.get(oldest)?.bytes ?? 0;
      this.entries.delete(oldest);
    }
    if (this.head > 65_536) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    const previous = this.entries.get(id);
    if (previous) this.bytes -= previous.bytes;
    else this.order.push(id);
    this.entries.set(id, { stream, revision, bytes });
    this.bytes += bytes;
  }

  get(id: string): CommittedId | undefined {
    return this.entries.get(id);
  }

  /** What a restart or a leader change leaves the (new) leader with. */
  clear(): void {
    this.entries.clear();
    this.order = [];
    this.head = 0;
    this.bytes = 0;
  }
}
