/**
 * Tells whoever listens that something changed (an append, a commit). Listeners are called in the order
 * they came, each once per `notify`, on a copy of the set, so one that stops listening meanwhile does not
 * make another miss the news. `watching` hears when the first listener comes and the last one goes, for
 * a signal that must watch a file or a connection only while someone listens.
 */
export class ChangeSignal<A extends unknown[] = []> {
  private readonly listeners = new Set<(...args: A) => void>();

  constructor(private readonly watching?: { readonly start: () => void; readonly stop: () => void }) {}

  /** Listens until the returned function is called. */
  listen(listener: (...args: A) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.watching?.start();
    return () => {
      if (!this.listeners.delete(listener)) return;
      if (this.listeners.size === 0) this.watching?.stop();
    };
  }

  notify(...args: A): void {
    for (const listener of [...this.listeners]) listener(...args);
  }

  /** Forgets every listener (a store closing), without telling `watching`. */
  clear(): void {
    this.listeners.clear();
  }
}
