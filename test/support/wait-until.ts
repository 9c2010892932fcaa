import { setTimeout as pause } from 'node:timers/promises';

/**
 * Waits until `condition` holds, looking again whenever the event loop has had a turn (a condition, not
 * a time, ends the wait); fails with `what` if it has not held within `limitMs`, which only bounds a hang.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, limitMs = 45_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${limitMs} ms`);
    await pause(5);
  }
}
