/**
 * Tokens' last uses, written in groups: every use recorded during one turn of the event loop goes to the
 * store in one transaction after it, so a process serving many tokens makes one durable write (one
 * fsync, on the event loop) per turn instead of one per token. A write that fails is dropped: a last use
 * is advisory and recorded again a minute later (LAST_USED_PRECISION_MS).
 */
export class LastUseBatch {
  private readonly pending = new Map<string, string>();
  private scheduled = false;

  constructor(private readonly write: (uses: ReadonlyMap<string, string>) => void) {}

  add(tokenId: string, usedAt: string): void {
    this.pending.set(tokenId, usedAt);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes what is pending now: before a read of tokens, so this process's readers see its own uses. */
  flush(): void {
    if (this.pending.size === 0) return;
    const uses = new Map(this.pending);
    this.pending.clear();
    try {
      this.write(uses);
    } catch {
      // Dropped: see above.
    }
  }
}
