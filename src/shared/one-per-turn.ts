/**
 * `read`'s answer kept until the current turn of the event loop has run its microtasks, then forgotten
 * (process.nextTick runs once they are drained, before any further I/O callback). So every request that
 * goes on in one turn (those a batch of rate-limit counts wakes together) shares one read, while a
 * request that arrives later, after a change it was told of, always reads again: no I/O callback, and so
 * no request's bytes, can run while an answer is kept. A read that throws keeps nothing.
 */
export function onePerTurn<T>(read: () => T): () => T {
  let kept: { readonly value: T } | null = null;
  const forget = (): void => {
    kept = null;
  };
  return () => {
    if (kept) return kept.value;
    const value = read();
    kept = { value };
    process.nextTick(forget);
    return value;
  };
}
