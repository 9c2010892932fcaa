import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long computations are written once as generators that yield every few thousand units of work, and run
 * either at once (tests, benchmarks) or in slices of a few milliseconds between which the event loop
 * serves other requests (a large matcher compiled while the service runs).
 */
export type Steps<T> = Generator<void, T, void>;

/** Units of work between two yields: small enough that a slice overshoots by far less than a millisecond. */
export const WORK_PER_STEP = 4096;

export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` for at most about `sliceMs` at a time, letting the event loop turn in between. */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = 4): Promise<T> {
  for (;;) {
    const sliceEnd = performance.now() + sliceMs;
    do {
      const step = steps.next();
      if (step.done) return step.value;
    } while (performance.now() < sliceEnd);
    await nextTurn();
  }
}
