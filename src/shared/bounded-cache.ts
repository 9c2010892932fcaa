/** How much a cache may hold: entries, and their summed weight (bytes, items: the caller's unit). */
export interface CacheBounds {
  readonly entries: number;
  readonly weight: number;
}

/**
 * Least recently used entries go first once either bound is passed; the newest entry always stays,
 * whatever its weight (a caller that must refuse one heavier than the bound checks before `set`).
 * Map order is insertion order, so moving an entry to the young end is a delete and a set.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly weight: number }>();
  private total = 0;

  constructor(private readonly bounds: CacheBounds) {}

  /** The value, made the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value, leaving the order alone. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps the value as the most recently used; answers how many older entries it pushed out. */
  set(key: K, value: V, weight: number): number {
    this.delete(key);
    this.entries.set(key, { value, weight });
    this.total += weight;
    let evicted = 0;
    for (const [oldest, entry] of this.entries) {
      if ((this.entries.size <= this.bounds.entries && this.total <= this.bounds.weight) || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
      evicted += 1;
    }
    return evicted;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.weight;
  }

  /** Forgets every entry (a cache whose source changed under it). */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get weight(): number {
    return this.total;
  }
}
