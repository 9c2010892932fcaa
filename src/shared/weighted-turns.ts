/**
 * Lets tasks run while their weights add up to at most `capacity`, in the order they asked; a task
 * heavier than the capacity runs alone. Waiting tasks hold nothing but their place in the queue.
 */
export class WeightedTurns {
  private readonly queue: { readonly weight: number; readonly start: () => void }[] = [];
  private used = 0;

  constructor(private readonly capacity: number) {}

  async run<T>(weight: number, task: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.queue.push({ weight, start });
      this.next();
    });
    try {
      return await task();
    } finally {
      this.used -= weight;
      this.next();
    }
  }

  private next(): void {
    while (this.queue.length > 0) {
      const first = this.queue[0]!;
      if (this.used > 0 && this.used + first.weight > this.capacity) return;
      this.queue.shift();
      this.used += first.weight;
      first.start();
    }
  }
}
