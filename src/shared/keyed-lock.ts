/**
 * Runs tasks that share a key one after another, and tasks of different keys freely. Keys are dropped
 * once their last task settles, so the lock holds memory only for keys in use.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /**
   * Waits for the key's earlier tasks, then holds the key until the returned release is called (once or
   * more: later calls do nothing). For a turn that begins in one step of a caller and ends in another.
   */
  acquire(key: string): Promise<() => void> {
    return new Promise((granted) => {
      void this.run(key, () => new Promise<void>((release) => granted(() => release())));
    });
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}
