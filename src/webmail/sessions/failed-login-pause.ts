import { setTimeout as delay } from 'node:timers/promises';

/**
 * How the webmail waits after a failed login (Roundcube sleeps a second to slow guessing): a timer, so
 * the process answers every other request meanwhile, where a sleep would hold them all.
 */
export const timerPause = (ms: number): Promise<void> => delay(ms);
