import type { FilterView } from '../fold/filter-view.ts';

/**
 * The views this projector last stored, so the next batch folds into them without reading them back.
 * Valid only while one projector writes the read model (the lease holder, or a rebuild into a generation
 * nobody else writes); a new projector starts with an empty cache. Least recently used views go first.
 */
export class ViewCache {
  private readonly views = new Map<string, FilterView>();

  constructor(private readonly capacity = 10_000) {}

  get(filterId: string): FilterView | undefined {
    const view = this.views.get(filterId);
    if (view) {
      this.views.delete(filterId);
      this.views.set(filterId, view);
    }
    return view;
  }

  remember(view: FilterView): void {
    this.views.delete(view.id);
    this.views.set(view.id, view);
    if (this.views.size > this.capacity) this.views.delete(this.views.keys().next().value!);
  }
}
