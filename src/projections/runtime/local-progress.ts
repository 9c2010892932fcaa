/**
 * What this process's own projector did to the read models: it stored a batch, stopped, or swapped a
 * generation in. A store hears of other connections' commits (SQLite's `data_version`), never of its own,
 * so read-your-writes waits listen here too, or they would wait out their time-out whenever the
 * in-process projector paused and started again.
 */
export class LocalProgress {
  private readonly listeners = new Set<() => void>();

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tell(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
