/** A close that failed, under the name its resource was opened by. */
export interface CloseFailure {
  readonly name: string;
  readonly error: unknown;
}

// What a close returns is awaited and dropped (a promise or nothing).
type Close = () => unknown;

/**
 * What a process has opened, so that whatever fails (the fifth store, the port, the projector's start)
 * or however it stops, everything opened before is closed once, last opened first. Node 20 has no
 * AsyncDisposableStack, and a `try` per open was how the clean-ups drifted apart.
 */
export class OpenedResources {
  private readonly closers: { readonly name: string; readonly close: Close }[] = [];
  private closing: Promise<CloseFailure[]> | undefined;

  /** Opens one resource; its close is owed only once it has opened. */
  async open<T>(name: string, opener: () => Promise<T> | T, close: (resource: T) => unknown): Promise<T> {
    const resource = await opener();
    this.closers.push({ name, close: () => close(resource) });
    return resource;
  }

  /** A close owed for what is already open (handed in by a caller) or started in steps of its own. */
  defer(name: string, close: Close): void {
    this.closers.push({ name, close });
  }

  /**
   * Closes in reverse order, one after the other (a later resource may use an earlier one while it
   * closes: the worker number's release writes to the read store). A close that fails does not stop the
   * others; the failures are what it resolves with. A second call waits for the first.
   */
  closeAll(): Promise<CloseFailure[]> {
    this.closing ??= (async () => {
      const failures: CloseFailure[] = [];
      for (const { name, close } of this.closers.splice(0).reverse()) {
        try {
          await close();
        } catch (error) {
          failures.push({ name, error });
        }
      }
      return failures;
    })();
    return this.closing;
  }

  /** closeAll for a shutdown: fails once all are closed if any close failed (its own error when only one did). */
  async closeAllOrFail(): Promise<void> {
    const failures = await this.closeAll();
    if (failures.length === 1) throw failures[0]!.error;
    if (failures.length > 1)
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `${failures.length} resources failed to close: ${failures.map((failure) => failure.name).join(', ')}`,
      );
  }

  /**
   * Runs `build` (which opens through this scope); if it fails, closes what was opened and fails with
   * build's error, the one a start-up reports. Close failures then are dropped: the first cause is the news.
   */
  async orCloseAll<T>(build: () => Promise<T>): Promise<T> {
    try {
      return await build();
    } catch (error) {
      await this.closeAll();
      throw error;
    }
  }
}
