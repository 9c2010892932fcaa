/**
 * Runs work on one key at a time, in the order it was asked for; work on other keys runs meanwhile.
 * Only keys with work queued are held, so memory is bounded by the work in progress.
 */
export class StreamTurns {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    const result = before ? before.then(work, work) : work();
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work running or queued. */
  get size(): number {
    return this.tails.size;
  }
}
