import { BoundedCache } from '../../shared/bounded-cache.ts';
import type { FilterView } from '../fold/filter-view.ts';

/** How much a projector keeps: views, and their estimated size in bytes; whichever bound is reached first. */
export interface ViewCacheBounds {
  readonly views: number;
  readonly bytes: number;
}

/** The live projector's: the views of the accounts that are active now. */
export const LIVE_CACHE_BOUNDS: ViewCacheBounds = { views: 10_000, bytes: 64 * 1024 * 1024 };

/**
 * A rough size of a view in memory (objects, arrays and strings as V8 holds them), to bound the cache by
 * memory rather than by count: a filter with thousands of filtered statuses weighs as much as hundreds
 * of small ones.
 */
export function estimatedBytes(view: FilterView): number {
  let bytes = 240 + 2 * (view.title.length + view.id.length + view.accountId.length) + 16 * view.context.length;
  for (const keyword of view.keywords) bytes += 96 + 2 * (keyword.keyword.length + keyword.id.length);
  for (const status of view.statuses) bytes += 96 + 2 * (status.id.length + status.statusId.length);
  return bytes;
}

/**
 * The views this projector last stored, so the next batch folds into them without reading them back.
 * Valid only while one projector writes the read model (the lease holder, or a rebuild into a generation
 * nobody else writes); a new projector starts with an empty cache. Least recently used views go first.
 */
export class ViewCache {
  private readonly views: BoundedCache<string, FilterView>;
  private whole: boolean;

  /** `complete`: the read model holds no view yet, so every view stored from now on passes through here. */
  constructor(bounds: ViewCacheBounds = LIVE_CACHE_BOUNDS, complete = false) {
    this.views = new BoundedCache({ entries: bounds.views, weight: bounds.bytes });
    this.whole = complete;
  }

  /**
   * True while the cache holds every view this projector stored and the read model held none before:
   * a view it lacks is not stored, and need not be read back. The first view it lets go ends that.
   */
  get complete(): boolean {
    return this.whole;
  }

  get size(): number {
    return this.views.size;
  }

  get(filterId: string): FilterView | undefined {
    return this.views.get(filterId);
  }

  remember(view: FilterView): void {
    if (this.views.set(view.id, view, estimatedBytes(view)) > 0) this.whole = false;
  }
}
