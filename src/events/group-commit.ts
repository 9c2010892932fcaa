/** What one queued piece of work came to inside a shared transaction: its value, or why it alone failed. */
export type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

interface Queued<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: work submitted during one turn of the event loop is run together by `commit`, one
 * transaction (and so one fsync) for all of it, once the turn's other callbacks have run: the requests
 * read in the same turn share it, and no timer is involved, so it adds no fixed delay. One group is
 * committed at a time; what is submitted meanwhile waits and forms the next group, so the more writes
 * arrive during an fsync, the more the next one carries. `commit` answers each item on its own (a
 * conflict fails only its own item); if it rejects, the whole group failed. Each promise settles only
 * after `commit` has settled, i.e. after the transaction has committed.
 */
export class GroupCommit<T, R> {
  private queue: Queued<T, R>[] = [];
  private scheduled = false;
  private committing = false;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<readonly Outcome<R>[]>,
    private readonly afterCommit: () => void = () => {},
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.committing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const group = this.queue;
    this.queue = [];
    this.committing = true;
    let outcomes: readonly Outcome<R>[] | null = null;
    try {
      outcomes = await this.commit(group.map((q) => q.item));
    } catch (error) {
      for (const q of group) q.reject(error);
    } finally {
      this.committing = false;
    }
    if (outcomes) {
      group.forEach((q, i) => {
        const outcome = outcomes[i];
        if (!outcome) q.reject(new Error('the group commit gave no outcome for this item'));
        else if (outcome.ok) q.resolve(outcome.value);
        else q.reject(outcome.error);
      });
      if (outcomes.some((o) => o.ok)) this.afterCommit();
    }
    this.schedule();
  }
}
