/** Counts DoubleEcho streams that have started and not yet closed, so tests and shutdown can see leaks. */
export class StreamGauge {
  #open = 0;

  get open(): number {
    return this.#open;
  }

  track(stream: NodeJS.EventEmitter): void {
    this.#open++;
    stream.once('close', () => this.#open--);
  }
}
